"""The smoke study's report.html as a reader sees it: laid out by headless Chromium (Debian's
`chromium`, which `make test-newcomer` installs) in a 1400-pixel window. No table may be wider than
the page (a seven-branch table cut off at the right), the opening sections come first, and the
screenshot is a real picture of the page."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from pipeline.test_snakemake import snakemake, workflow_copy

pytestmark = pytest.mark.newcomer

ROOT = Path(__file__).resolve().parents[2]
WIDTH = 1400
# Measured in the page once it has loaded: each table's own width against its box's
PROBE = """<script>
window.addEventListener("load", () => {
  const boxes = [...document.querySelectorAll("div.table")];
  const cut = boxes.filter((d) => d.scrollWidth > d.clientWidth + 1)
    .map((d) => [...d.querySelectorAll("th")].map((th) => th.textContent).join(" | "));
  const sections = [...document.querySelectorAll("h2")].map((h) => h.textContent);
  const out = document.createElement("pre");
  out.id = "memshift-layout";
  out.textContent = JSON.stringify({
    width: document.documentElement.clientWidth, tables: boxes.length, cut: cut,
    sections: sections, images: [...document.images].filter((i) => i.naturalWidth > 0).length,
  });
  document.body.appendChild(out);
});
</script>"""


def chromium() -> str:
    found = shutil.which("chromium")
    assert found, "chromium is not installed: run make test-newcomer"
    return found


def browse(page: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--virtual-time-budget=5000", *args, page.as_uri()],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip


@pytest.fixture(scope="module")
def smoke_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("smoke") / "study"
    study = (ROOT / "config/studies/smoke.yaml").read_text()
    workflow = workflow_copy(where, {})
    (workflow / "study.yaml").write_text(study)
    run = snakemake(workflow)
    assert run.returncode == 0, run.stderr[-3000:]
    [report] = (workflow / "results").rglob("report/report.html")
    return report


def test_no_table_of_the_smoke_report_is_cut_off_at_1400_pixels(smoke_report: Path, tmp_path):
    page = smoke_report.read_text()
    end = page.rindex("</body>")
    probed = tmp_path / "probed.html"
    probed.write_text(page[:end] + PROBE + page[end:])
    dom = browse(probed, f"--window-size={WIDTH},1000", "--dump-dom").stdout
    found = re.search(r'<pre id="memshift-layout">([^<]*)</pre>', dom)
    assert found, dom[-2000:]
    layout = json.loads(found[1].replace("&quot;", '"').replace("&amp;", "&"))
    assert layout["width"] <= WIDTH and layout["tables"] >= 20
    assert layout["cut"] == []
    assert layout["sections"][:3] == ["Contents", "In short", "Legend"]
    assert layout["images"] == 4


def test_the_screenshot_is_a_picture_of_the_page(smoke_report: Path, tmp_path):
    shot = tmp_path / "report.png"
    browse(smoke_report, f"--window-size={WIDTH},2400", f"--screenshot={shot}")
    with Image.open(shot) as image:
        assert image.size == (WIDTH, 2400)
        counted = image.convert("RGB").getcolors(maxcolors=1 << 24)
    assert counted is not None and len(counted) > 50  # text, tables and a figure, not a blank
