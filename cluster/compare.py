"""Whether two runs of a study produced the same outputs, byte for byte: both manifests are
re-hashed against their files (`memshift verify`), then their output hashes and code
fingerprints compared. Exit 0 equal, 1 different (each difference named), 2 unreadable.

    python cluster/compare.py RUN_DIR_A RUN_DIR_B"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def manifest(run: Path) -> dict:
    path = run / "manifest.json"
    verified = subprocess.run(
        ["memshift", "verify", str(path)], capture_output=True, text=True, check=False
    )
    if verified.returncode != 0:
        print(f"{path}: its outputs do not match it:\n{verified.stdout}{verified.stderr}")
        sys.exit(verified.returncode)
    return json.loads(path.read_text())


def main(a: str, b: str) -> int:
    first, second = manifest(Path(a)), manifest(Path(b))
    differences = [
        f"{name}: {first['outputs'].get(name)} != {second['outputs'].get(name)}"
        for name in sorted(set(first["outputs"]) | set(second["outputs"]))
        if first["outputs"].get(name) != second["outputs"].get(name)
    ]
    differences += [
        f"{key} differs" for key in ("code", "generator_version", "model", "seeds", "study")
        if first[key] != second[key]
    ]
    for line in differences:
        print(line)
    print(f"{len(first['outputs'])} outputs compared: {len(differences)} differences")
    return 1 if differences else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
