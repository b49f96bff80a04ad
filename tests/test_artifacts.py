import subprocess
import sys
import textwrap

import pytest


def _run(code: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], check=True, capture_output=True, text=True
    ).stdout.strip()


def test_tables_are_built_without_importing_pandas_and_pandas_still_works_after() -> None:
    pytest.importorskip("pandas")
    out = _run(
        """
        import sys
        import pyarrow as pa
        from memshift.artifacts import skip_pyarrow_pandas_probe

        skip_pyarrow_pandas_probe()
        table = pa.Table.from_pydict({"a": [1, None], "b": [["x"], []]})
        print("pandas" in sys.modules, table.column("a").to_pylist())
        import pandas as pd
        print(table.to_pandas().shape, pa.array(pd.Series([1.5])).type)
        """
    )
    assert out.splitlines() == ["False [1, None]", "(2, 2) double"]
