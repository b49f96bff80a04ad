#!/usr/bin/env bash
# A native memory library whose pins clash with memshift's, in an environment of its own
# (docs/native.md): .native/LIBRARY, from requirements/native-LIBRARY.txt (every package pinned),
# installed with the uv of memshift's environment. The adapter runs the library there as a
# process of its own (src/memshift/native/bridges/). Does nothing when the same pins are installed.
# A library whose declared dependencies include one it does not need here has an overrides file,
# requirements/native-LIBRARY-overrides.txt (uv's --override), saying why.
#   environments/native.sh memos|cognee|amem|hipporag
set -euo pipefail
cd "$(dirname "$0")/.."
LIBRARY=${1:?usage: environments/native.sh memos|cognee|amem|hipporag}
case "$LIBRARY" in
    memos|cognee|amem|hipporag) ;;
    *) echo "environments/native.sh: no environment for $LIBRARY (memos, cognee, amem, hipporag)" >&2; exit 2 ;;
esac
PYTHON=${PYTHON:-python3}
UV=.venv/bin/uv
VENV=.native/$LIBRARY
PINS=requirements/native-$LIBRARY.txt
OVERRIDES=requirements/native-$LIBRARY-overrides.txt
OVERRIDE=()
STAMPED=("$PINS" "$0")
if [ -f "$OVERRIDES" ]; then
    OVERRIDE=(--override "$OVERRIDES")
    STAMPED+=("$OVERRIDES")
fi
STAMP="$VENV/.installed-$(cat "${STAMPED[@]}" | sha256sum | cut -c1-16)"
if [ -f "$STAMP" ]; then
    exit 0
fi
rm -rf "$VENV"
echo "environments/native.sh: installing $LIBRARY into $VENV" >&2
start=$(date +%s)
"$UV" venv --quiet --python "$PYTHON" "$VENV"
"$UV" pip install --quiet --compile-bytecode --python "$VENV/bin/python" -r "$PINS" "${OVERRIDE[@]}"
echo "environments/native.sh: $LIBRARY installed in $(( $(date +%s) - start )) s ($(du -sh "$VENV" | cut -f1))" >&2
touch "$STAMP"
