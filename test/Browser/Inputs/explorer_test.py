"""Browser tests of the layout explorer (`axe-layout serve`, `axe-layout show --html`) in headless Chromium.

usage: explorer_test.py SCENARIO AXE_LAYOUT [OUTPUT_DIR]

Each scenario starts the tools, drives the page with real key presses over the DevTools protocol (cdp.py) and
checks what the page draws against `axe-layout eval --json` / `tma-plan --json` / `mma-plan --json` and against
rules written here from the PTX ISA and the page's own definition of a bank conflict, computed independently of
the page's script. It prints one line per fact for FileCheck and exits non-zero on the first failed check.
Screenshots go to target/browser-artifacts/.
"""

import json
import os
import re
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
ARTIFACTS = os.path.join(ROOT, "target", "browser-artifacts")

MMA_C = "S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)]"
SWIZZLED = "Swizzle(3,3,3) o S[(8,64):(64,1)]"
PLAIN = "S[(8,64):(64,1)]"


def check(condition, message):
    if not condition:
        print("FAILED: " + message, flush=True)
        sys.exit(1)


class Tool:
    def __init__(self, path):
        self.path = path

    def run(self, *args, ok=True):
        p = subprocess.run([self.path, *args], capture_output=True, text=True, timeout=120)
        if ok:
            check(p.returncode == 0, "axe-layout %s failed: %s" % (" ".join(args), p.stderr))
        return p

    def json(self, *args):
        return json.loads(self.run(*args, "--json").stdout)


class Server:
    """`axe-layout serve --port 0`, its address read from its first line."""

    def __init__(self, tool):
        self.proc = subprocess.Popen(
            [tool.path, "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        line = self.proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if match is None:
            self.proc.kill()
            check(False, "serve printed no address: %r %s" % (line, self.proc.stderr.read()))
        self.url = match.group(0)
        self.port = int(match.group(1))

    def close(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ---- what the page shows --------------------------------------------------------------------------------------
CELLS_JS = """Array.from(document.querySelectorAll('#%s td')).map(td => ({
  r: +td.dataset.r, c: +td.dataset.c, label: td.firstChild ? td.firstChild.textContent : '',
  sub: td.querySelector('.sub') ? td.querySelector('.sub').textContent : null,
  image: td.dataset.image ? JSON.parse(td.dataset.image) : null, key: td.dataset.colorKey,
  issue: td.dataset.issue, frag: td.dataset.frag, lane: td.dataset.lane,
  color: getComputedStyle(td).backgroundColor }))"""


def cells(browser, table="grid"):
    return browser.js(CELLS_JS % table)


def show_layout(browser, layout, shape):
    """Types the layout and the shape and presses Enter, as a person would."""
    browser.type_into("layout", layout)
    browser.type_into("shape", shape)
    browser.settled_after(browser.enter)


def check_grid_against_eval(browser, tool, layout, shape):
    """Every drawn cell's image is eval --json's coordinate set of that index; returns (cells, points)."""
    expected = tool.json("eval", layout, "--shape", shape)["points"]
    got = cells(browser)
    cols = int(browser.js("document.getElementById('grid').dataset.cols"))
    full_cols = [int(n) for n in shape.split(",")][-1]
    check(len(got) > 0, "no cells drawn")
    for cell in got:
        flat = cell["r"] * full_cols + cell["c"]
        check(cell["image"] == expected[flat], "cell (%d,%d): page %s, eval %s" % (cell["r"], cell["c"], cell["image"],
                                                                                 expected[flat]))
    print("grid: %d cells match eval --json (%d columns drawn)" % (len(got), cols))
    return got, expected


# ---- bank conflicts, computed here from eval --json by the page's written definition -----------------------------
def bank_conflicts(points, rows, cols, elem_bytes, vec, order):
    """Conflicts per warp-wide access: lane t of access k reads the vector slot 32k+t (slots numbered row-major or
    column-major over rows x cols/vec), each element at its lowest address times elem_bytes; a phase is 32/16/8
    lanes for <=4/8/16 bytes per lane; a phase's wavefronts are the most distinct 4-byte words in one bank."""
    per_row = cols // vec
    slots = rows * per_row
    per_phase = 32 if elem_bytes * vec <= 4 else 128 // (elem_bytes * vec)
    result = []
    for k in range((slots + 31) // 32):
        lane_words = []
        for s in range(32 * k, min(32 * k + 32, slots)):
            r, j = (s // per_row, s % per_row) if order == "row" else (s % rows, s // rows)
            words = set()
            for c in range(j * vec, j * vec + vec):
                address = min(p["m"] for p in points[r * cols + c]) * elem_bytes
                words.update(range(address // 4, (address + elem_bytes - 1) // 4 + 1))
            lane_words.append(words)
        conflicts = 0
        for start in range(0, len(lane_words), per_phase):
            banks = {}
            for words in lane_words[start:start + per_phase]:
                for w in words:
                    banks.setdefault(w % 32, set()).add(w)
            conflicts += max(len(ws) for ws in banks.values()) - 1
        result.append(conflicts)
    return result


def page_conflicts(browser):
    total = browser.js("+document.getElementById('bank-total').dataset.conflicts")
    per_access = browser.js(
        "Array.from(document.querySelectorAll('#access-table tr[data-access]')).map(r => +r.dataset.conflicts)")
    return total, per_access


def set_select(browser, element_id, value):
    browser.js("(() => { const e = document.getElementById(%s); e.value = %s; "
               "e.dispatchEvent(new Event('change')); return true; })()" % (json.dumps(element_id), json.dumps(value)))


# ---- scenarios ----------------------------------------------------------------------------------------------------
def scenario_register(tool):
    """The mma.sync C fragment: labels, colours per lane, the colour toggle, keyboard, a narrow window."""
    with Server(tool) as server, Browser() as browser:
        browser.navigate(server.url)
        show_layout(browser, MMA_C, "16,8")
        got, expected = check_grid_against_eval(browser, tool, MMA_C, "16,8")
        check(len(got) == 128, "128 cells, got %d" % len(got))
        # Labels: every axis, innermost thread axis first (laneid:reg), as eval gives them.
        for cell in got:
            p = expected[cell["r"] * 8 + cell["c"]][0]
            check(cell["label"] == "%d:%d" % (p["laneid"], p["reg"]), "label of (%d,%d): %r" % (cell["r"], cell["c"],
                                                                                               cell["label"]))
        # PTX ISA 9.7.14.5.8 (m16n8k16 C/D): c0,c1 at row groupID, columns 2*(lane%4)+{0,1}; c2,c3 at row+8.
        for cell in got:
            p = expected[cell["r"] * 8 + cell["c"]][0]
            lane, reg = p["laneid"], p["reg"]
            check((lane // 4 + 8 * (reg // 2), 2 * (lane % 4) + reg % 2) == (cell["r"], cell["c"]),
                  "(%d,%d) is not lane %d register %d of the PTX fragment" % (cell["r"], cell["c"], lane, reg))
        print("labels: laneid:reg, the PTX m16n8k16 accumulator fragment")
        # Colours: one per lane, the same for both registers of a lane, 32 different ones.
        by_lane = {}
        for cell in got:
            by_lane.setdefault(expected[cell["r"] * 8 + cell["c"]][0]["laneid"], set()).add(cell["color"])
        check(all(len(c) == 1 for c in by_lane.values()), "a lane has several colours: %s" % by_lane)
        distinct = {next(iter(c)) for c in by_lane.values()}
        check(len(distinct) == 32, "32 lanes, %d colours" % len(distinct))
        print("colours: %d lanes, %d colours, one per lane" % (len(by_lane), len(distinct)))
        os.makedirs(ARTIFACTS, exist_ok=True)
        browser.screenshot(os.path.join(ARTIFACTS, "register-layout.png"), "layout-section")
        # Toggle: colour by reg instead of laneid -> four colours, one per register (c0..c3).
        browser.js("document.getElementById('color-axis-laneid').click(); "
                   "document.getElementById('color-axis-reg').click(); true")
        got = cells(browser)
        by_reg = {}
        for cell in got:
            by_reg.setdefault(expected[cell["r"] * 8 + cell["c"]][0]["reg"], set()).add(cell["color"])
        check(len(by_reg) == 4 and all(len(c) == 1 for c in by_reg.values())
              and len(set.union(*by_reg.values())) == 4, "colour by reg: %s" % by_reg)
        browser.js("document.getElementById('label-axis-reg').click(); true")
        check(cells(browser)[3]["label"] == "1", "label laneid only: cell (0,3) is lane 1")
        print("toggles: colour by reg gives %d colours; label by laneid alone" % len(by_reg))
        # Keyboard: focus the first cell, arrow right and down; the detail names the cell's full image.
        browser.js("document.querySelector('#grid td').focus(); true")
        browser.key("ArrowRight", "ArrowRight", 39)
        browser.key("ArrowDown", "ArrowDown", 40)
        detail = browser.js("document.getElementById('cell-detail').textContent")
        focused = browser.js("[+document.activeElement.dataset.r, +document.activeElement.dataset.c]")
        check(focused == [1, 1], "arrow keys moved focus to %s" % focused)
        check("row 1, column 1" in detail and "laneid=4 reg=1" in detail, "detail: %r" % detail)
        print("keyboard: focus at (1,1), detail: " + detail.splitlines()[1])
        # A replicated layout with an offset (the spec's tensor-core tile): each cell lists both copies, warps 5
        # and 9 (offset 5, replica stride 4), as eval --json does; the label joins them with '/'.
        tile = "S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid"
        show_layout(browser, tile, "8,16")
        got, _ = check_grid_against_eval(browser, tool, tile, "8,16")
        check(got[0]["label"] == "0:5:0/0:9:0" and got[8]["label"] == "0:6:0/0:10:0",
              "replica labels %r %r" % (got[0]["label"], got[8]["label"]))
        print("replicas: (0,0) %s, (0,8) %s" % (got[0]["label"], got[8]["label"]))
        # A narrow window: the page itself does not scroll sideways (the grid scrolls in its box).
        browser.resize(400, 800)
        width = browser.js("[document.documentElement.scrollWidth, window.innerWidth]")
        check(width[0] <= width[1], "narrow window: page %d px wide in a %d px window" % tuple(width))
        print("narrow: fits 400 px")


def scenario_swizzle(tool):
    """A 128B-swizzled f16 tile: its bank view (0 conflicts), the unswizzled tile (56), the TMA view."""
    with Server(tool) as server, Browser(height=1400) as browser:
        browser.navigate(server.url)
        for layout in (SWIZZLED, PLAIN):
            show_layout(browser, layout, "8,64")
            got, points = check_grid_against_eval(browser, tool, layout, "8,64")
            # A shared layout is coloured by bank: (address * 2 bytes / 4) mod 32, one colour per bank.
            by_bank = {}
            for cell in got:
                by_bank.setdefault(points[cell["r"] * 64 + cell["c"]][0]["m"] * 2 // 4 % 32, set()).add(cell["color"])
            check(len(by_bank) == 32 and all(len(c) == 1 for c in by_bank.values())
                  and len(set.union(*by_bank.values())) == 32, "colours by bank: %s" % by_bank)
            print("colours: 32 banks, one colour each")
            for order in ("column", "row"):
                set_select(browser, "order", order)
                total, per_access = page_conflicts(browser)
                mine = bank_conflicts(points, 8, 64, 2, 8, order)
                check(per_access == mine, "%s %s order: page %s, computed here %s" % (layout, order, per_access, mine))
                check(total == sum(mine), "total %s vs %s" % (total, sum(mine)))
                print("banks: %s, %s order, 8 x f16 per lane: conflicts %s" % (layout, order, per_access))
            set_select(browser, "order", "column")
            if layout == SWIZZLED:
                os.makedirs(ARTIFACTS, exist_ok=True)
                browser.js("document.getElementById('access-table').querySelector('tr[data-access]').click(); true")
                browser.screenshot(os.path.join(ARTIFACTS, "swizzled-shared-banks.png"), "bank-section")
                browser.screenshot(os.path.join(ARTIFACTS, "swizzled-shared-page.png"))
                conflicted = browser.js("document.querySelectorAll('#bank-grid td.conflict').length")
                check(conflicted == 0, "swizzled: %d conflicted bank cells drawn" % conflicted)
            else:
                conflicted = browser.js("document.querySelectorAll('#bank-grid td.conflict').length")
                # Phase 0 of access 0 reads chunk 0 of 8 rows: banks 0-3, 8 words each, drawn in red.
                check(conflicted > 0, "unswizzled: no conflicted bank drawn")
                print("banks: unswizzled access 0 draws %d conflicted bank cells" % conflicted)
        # TMA view of the swizzled tile: the same plan as tma-plan --json, every element in its one box.
        show_layout(browser, SWIZZLED, "8,64")
        plan = tool.json("tma-plan", "--global", "S[(8,64):(64,1)]", "--global-shape", "8,64", "--global-region",
                         "0:8,0:64", "--shared", SWIZZLED, "--shared-shape", "8,64", "--shared-region", "0:8,0:64",
                         "--dtype", "f16")
        shown = browser.js("document.getElementById('tma-text').textContent")
        check("box_dims              [64, 8]" in shown, "TMA text: %r" % shown)
        issues = {c["issue"] for c in cells(browser, "tma-grid")}
        check(len(plan["issues"]) == 1 and issues == {"0"}, "TMA: plan %s, page issues %s" % (plan, issues))
        print("tma: %d issue, box %s, swizzle %d; every cell in issue 0" % (len(plan["issues"]), plan["box_dims"],
                                                                           plan["swizzle"]))
        # Two 128-byte panels of 64 columns, 1024 bytes apart: a 128B-swizzled box is one panel (its inner row is
        # exactly the 128-byte span), so columns 0-63 are issue 0 and 64-127 issue 1.
        panels = "Swizzle(3,3,3) o S[(8,2,64):(64,512,1)]"
        show_layout(browser, panels, "8,128")
        plan = tool.json("tma-plan", "--global", "S[(8,128):(128,1)]", "--global-shape", "8,128", "--global-region",
                         "0:8,0:128", "--shared", panels, "--shared-shape", "8,128", "--shared-region", "0:8,0:128",
                         "--dtype", "f16")
        check(len(plan["issues"]) == 2, "panels: %s" % plan)
        for cell in cells(browser, "tma-grid"):
            check(int(cell["issue"]) == cell["c"] // 64, "(%d,%d) is in issue %s" % (cell["r"], cell["c"], cell["issue"]))
        print("tma: two panels, %d issues, box %s, offsets %s; columns 0-63 issue 0, 64-127 issue 1"
              % (len(plan["issues"]), plan["box_dims"], [i["smem_offset_bytes"] for i in plan["issues"]]))


def scenario_errors(tool):
    """A bad layout, a bad shape, a huge shape: messages in place, never a frozen page."""
    with Server(tool) as server, Browser() as browser:
        browser.navigate(server.url)
        bad = "S[(8,4):(4@laneid,1@laneid]"
        show_layout(browser, bad, "8,4")
        cli = tool.run("eval", bad, "--shape", "8,4", ok=False)
        check(cli.returncode == 1, "the CLI refuses the bad layout")
        column = re.search(r"column (\d+)", cli.stderr).group(1)
        message = browser.js("document.querySelector('#layout-error .error-message').textContent")
        caret = browser.js("document.querySelector('#layout-error pre.caret').textContent")
        invalid = browser.js("document.getElementById('layout').getAttribute('aria-invalid')")
        check("column %s:" % column in message, "page error %r, CLI column %s" % (message, column))
        check(caret.splitlines()[1] == " " * (int(column) - 1) + "^", "caret line %r" % caret)
        check(invalid == "true", "the layout input is not marked invalid")
        print("bad layout: %s (CLI: column %s)" % (message, column))
        show_layout(browser, "S[(8,4):(4@laneid,1@laneid)]", "8,x")
        message = browser.js("document.querySelector('#shape-error .error-message').textContent")
        check(message.startswith("column 3:"), "shape error %r" % message)
        print("bad shape: " + message)
        show_layout(browser, "S[(8,4):(4@laneid,1@laneid)]", "8,5")
        message = browser.js("document.getElementById('shape-error').textContent")
        check(message, "a shape the layout does not admit gives a message")
        print("shape not admitted: " + message)
        # 2^30 elements: the page draws a 16 x 256 corner and says so, within seconds.
        huge = "S[(1048576,1024):(1024,1)]"
        start = time.monotonic()
        show_layout(browser, huge, "1048576,1024")
        seconds = time.monotonic() - start
        drawn = len(cells(browser))
        note = browser.js("document.getElementById('grid-note').textContent")
        check(drawn <= 4096 and drawn == 16 * 256, "huge: %d cells drawn" % drawn)
        check(note.startswith("showing rows 0..16 and columns 0..256 of 1048576 x 1024"), "huge note %r" % note)
        check(seconds < 20, "huge shape took %.1f s" % seconds)
        print("huge: %d cells drawn; note: %s" % (drawn, note.split(":")[0]))
        check_grid_against_eval_sample(browser, tool, huge, "1048576,1024")
        # The page still answers afterwards.
        show_layout(browser, MMA_C, "16,8")
        check(len(cells(browser)) == 128, "the page draws again after the huge shape")
        print("after: 128 cells")


def check_grid_against_eval_sample(browser, tool, layout, shape):
    """For a huge shape, eval --json --at checks a few drawn cells (the full listing is refused)."""
    full_cols = int(shape.split(",")[-1])
    got = cells(browser)
    for cell in (got[0], got[255], got[-1]):
        at = "%d,%d" % (cell["r"], cell["c"])
        expected = tool.json("eval", layout, "--shape", shape, "--at", at)["points"][0]
        check(cell["image"] == expected, "huge cell %s: %s vs %s" % (at, cell["image"], expected))
        check(expected[0]["m"] == cell["r"] * full_cols + cell["c"], "row-major address")
    print("huge: sampled cells match eval --json --at")


def scenario_mma(tool):
    """The MMA view of the default mma.sync m16n8k16: each element's lane and fragment element per the PTX ISA."""
    with Server(tool) as server, Browser() as browser:
        browser.navigate(server.url)
        request = browser.js("Object.fromEntries(['chip','dtype','acc_dtype','a','a_shape','a_mem','b','b_shape',"
                             "'b_mem','c','c_shape','c_mem'].map(f => [f, document.getElementById('mma-' + f).value]))")
        args = []
        for key in ("chip", "dtype", "acc_dtype", "a", "a_shape", "a_mem", "b", "b_shape", "b_mem", "c", "c_shape",
                    "c_mem"):
            args += ["--" + key.replace("_", "-"), request[key]]
        plan = tool.json("mma-plan", *args)
        summary = browser.js("document.getElementById('mma-summary').textContent")
        check(summary.startswith(plan["instruction"]), "summary %r, plan %s" % (summary, plan["instruction"]))
        print("mma: " + summary)
        # PTX ISA 9.7.14.5.8, m16n8k16 .f16: groupID = lane/4, tig = lane%4;
        # A: a_i at row groupID + 8*((i/2)%2), column 2*tig + i%2 + 8*(i/4);
        # B: b_i at row (K) 2*tig + i%2 + 8*(i/2), column groupID;  C: c_i at row groupID + 8*(i/2), column 2*tig + i%2.
        rules = {
            "a": lambda lane, i: (lane // 4 + 8 * ((i // 2) % 2), 2 * (lane % 4) + i % 2 + 8 * (i // 4)),
            "b": lambda lane, i: (2 * (lane % 4) + i % 2 + 8 * (i // 2), lane // 4),
            "c": lambda lane, i: (lane // 4 + 8 * (i // 2), 2 * (lane % 4) + i % 2),
        }
        for role, size in (("a", 256), ("b", 128), ("c", 128)):
            browser.js("document.querySelector('input[name=\"mma-operand\"][value=\"%s\"]').click(); true" % role)
            got = cells(browser, "mma-grid")
            check(len(got) == size, "%s: %d cells" % (role, len(got)))
            for cell in got:
                lane, frag = int(cell["lane"]), int(cell["frag"])
                check(rules[role](lane, frag) == (cell["r"], cell["c"]),
                      "%s(%d,%d) shown as lane %d %s%d" % (role, cell["r"], cell["c"], lane, role, frag))
                check(cell["label"] == "%s%d" % (role, frag) and cell["sub"] == "L%d" % lane, "label %s" % cell)
            print("mma %s: %d elements, lane and fragment element as the PTX ISA places them" % (role, len(got)))
        # An error in one operand's layout is shown under that field.
        browser.type_into("mma-b", "S[(2,4,2,8):(2,1@laneid,1,4@lane)]")
        browser.settled_after(browser.enter)
        message = browser.js("document.getElementById('mma-b-error').textContent")
        check("unknown axis" in message or "lane" in message, "mma error %r" % message)
        print("mma bad B: " + message.splitlines()[0][:60])


def scenario_static(tool, out):
    """show --html: one file, no network; the grid, the banks and the TMA plan drawn from the embedded answers."""
    page = out + ".html"
    written = tool.run("show", SWIZZLED, "--shape", "8,64", "--html", page)
    check(written.stdout.strip() == "wrote " + page, "show --html said %r" % written.stdout)
    html = open(page, encoding="utf-8").read()
    check(not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html), "the file links to the network")
    print("static: %d bytes, no network links" % len(html))
    with Browser(height=1400) as browser:
        browser.navigate("file://" + page)
        urls = browser.requested_urls()
        check(all(u.startswith("file:") or u.startswith("data:") for u in urls), "requests: %s" % urls)
        check_grid_against_eval(browser, tool, SWIZZLED, "8,64")
        total, per_access = page_conflicts(browser)
        check(per_access == [0, 0], "static banks %s" % per_access)
        print("static banks: conflicts %s" % per_access)
        check(browser.js("document.getElementById('tma-summary').textContent").startswith("1 issue"), "static TMA")
        check(browser.js("document.getElementById('mma-summary').textContent").startswith("mma.sync"), "static MMA")
        banner = browser.js("document.getElementById('mode-note').textContent")
        check("axe-layout serve" in banner, "banner %r" % banner)
        # Another layout cannot be evaluated without the server: the page says so.
        show_layout(browser, PLAIN, "8,64")
        message = browser.js("document.getElementById('eval-error').textContent")
        check("editing needs `axe-layout serve`" in message, "static edit %r" % message)
        print("static edit: " + message)
        check(all(u.startswith("file:") or u.startswith("data:") for u in browser.requested_urls()), "no requests")
    # A bad layout is refused by the CLI, with the column, and writes no file.
    bad = tool.run("show", "S[(8,4):(4@laneid,1@laneid]", "--html", out + "-bad.html", ok=False)
    check(bad.returncode == 1 and "column 27" in bad.stderr and not os.path.exists(out + "-bad.html"),
          "bad --html: %s" % bad.stderr)
    print("static bad: " + bad.stderr.splitlines()[0])


def main():
    scenario, tool = sys.argv[1], Tool(sys.argv[2])
    out = sys.argv[3] if len(sys.argv) > 3 else os.path.join(ARTIFACTS, "explorer")
    {"register": scenario_register, "swizzle": scenario_swizzle, "errors": scenario_errors, "mma": scenario_mma,
     "static": lambda t: scenario_static(t, out)}[scenario](tool)
    print("PASS " + scenario)


if __name__ == "__main__":
    main()
