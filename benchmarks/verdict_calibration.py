"""The verdict table's calibration by simulation: coverage, false findings, power; writes docs/statistics.md's table.

    python benchmarks/verdict_calibration.py                 # the full run (about 15 minutes on one core)
    python benchmarks/verdict_calibration.py --draws 400 --old-draws 100 --no-write   # a quick look
    python benchmarks/verdict_calibration.py --from-json      # rewrite the doc's table from the saved results

Every cell simulates runs of two arms (kit.analysis.calibration: seed effects on the logit, shared example
difficulty, 300 test examples) and measures the verdict table's interval and test (kit.analysis.noise) and, on the
same runs, the verdict the table gave before (the two-level bootstrap's percentile interval; found when the
bootstrap's p and Welch's over the seeds' scores are both below 0.05). The results go to
results_verdict_calibration.json and, between the markers, into docs/statistics.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import textwrap
import time
from pathlib import Path

import numpy as np
from scipy import special

from kit.analysis.calibration import Design, rates, seed_spread, simulate
from kit.analysis.noise import parts

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "statistics.md"
START, END = "<!-- calibration:start -->", "<!-- calibration:end -->"
SCENARIOS = {
    "seed spread ~3 points": dict(accuracy=0.75, seed_logit=0.25, difficulty=2.5),
    "seeds dominate": dict(accuracy=0.75, seed_logit=0.6, difficulty=3.0),
    "seeds barely vary": dict(accuracy=0.75, seed_logit=0.1, difficulty=1.0),
    "near the ceiling": dict(accuracy=0.93, seed_logit=0.25, difficulty=1.0),
}
POWER_SCENARIO = "seed spread ~3 points"
GAP = 0.07


def one_t(design: Design, draws: int, seed: int, chunk: int = 500) -> dict:
    """The roads not taken, on the runs ``rates(design, draws, seed)`` judges (the same draws, the same chunks): one t
    on the whole variance (Welch-Satterthwaite's df over both parts), and Welch's t over the seeds' scores alone."""
    rng, sums = np.random.default_rng(seed), np.zeros(3)
    for start in range(0, draws, chunk):
        a, b = simulate(design, min(chunk, draws - start), rng)
        delta, vs, ve, df = parts(a.mean(-1), a, b.mean(-1), b, design.paired)
        with np.errstate(divide="ignore", invalid="ignore"):
            nu = (vs + ve) ** 2 / (vs**2 / df + ve**2 / (design.examples - 1))
        h = special.stdtrit(nu, 0.975) * np.sqrt(vs + ve)
        welch = special.stdtrit(df, 0.975) * np.sqrt(vs)  # the seeds' scores alone (floored at the flips' part)
        sums += [np.sum(np.abs(delta - design.gap) <= h), np.sum(np.abs(delta) > h), np.sum(np.abs(delta) > welch)]
    return dict(zip(("coverage_one_t", "found_one_t", "found_welch"), (sums / draws).tolist()))


def run(draws: int, old_draws: int, resamples: int) -> dict:
    out = {"null": [], "power": [], "at_detectable": [], "spread": {}}
    for name, kw in SCENARIOS.items():
        out["spread"][name] = seed_spread(Design(5, **kw))
        for paired in (True, False):
            for seeds in (2, 3, 5):
                d = Design(seeds, paired=paired, **kw)
                r = rates(d, draws, seed=seeds)
                old = rates(d, old_draws, seed=100 + seeds, old_resamples=resamples)
                r.update({k: old[k] for k in ("coverage_old", "found_old", "coverage_old_mc", "found_old_mc")})
                r.update(one_t(d, draws, seed=seeds))
                r["old_draws"], r["scenario"] = old_draws, name
                out["null"].append(r)
                print(name, paired, seeds, {k: round(r[k], 3) for k in ("coverage", "found", "coverage_old")})
    kw = SCENARIOS[POWER_SCENARIO]
    for paired in (True, False):
        for seeds in (3, 5):
            d = Design(seeds, paired=paired, gap=GAP, **kw)
            r = rates(d, old_draws, seed=200 + seeds, old_resamples=resamples)
            r.update(one_t(d, old_draws, seed=200 + seeds))
            out["power"].append(r)
            print("power", paired, seeds, round(r["found"], 3), round(r["found_old"], 3))
    for row in out["null"]:
        if row["scenario"] == POWER_SCENARIO and row["seeds"] in (3, 5):
            gap = round(row["detectable"], 3)
            r = rates(Design(row["seeds"], paired=row["paired"], gap=gap, **kw), draws, seed=300 + row["seeds"])
            out["at_detectable"].append(r)
            print("at detectable", row["paired"], row["seeds"], gap, round(r["found"], 3))
    return out


def _pct(v: float) -> str:
    return f"{100 * v:.1f}"


def markdown(res: dict, draws: int, old_draws: int, resamples: int) -> str:
    machine = res["machine"]
    lines = [
        f"Measured by `python benchmarks/verdict_calibration.py` ({machine['date']}; numpy "
        f"{machine['numpy']}); raw numbers in `benchmarks/results_verdict_calibration.json`. Each arm: 300 test "
        f"examples, 1/0 per example, arm b at 75% (93% near the ceiling). Null draws (the arms equal): {draws:,} per "
        f"cell for the interval now (Monte Carlo error about 0.3 points at 95% and 5%), {old_draws:,} for the verdict "
        f"before ({resamples:,} bootstrap draws each; about 0.7-1 point). *now*: the table's interval; *before*: the "
        "two-level bootstrap with Welch's t; *one t*: one t interval on the same variance with Welch-Satterthwaite's "
        "df over both parts; *Welch alone*: Welch's t over the seeds' scores (floored at the flips' part); neither is "
        "used, both are measured on the runs of *now*. *paired*: both arms on the same test set. *seed sd*: the "
        "standard deviation of one seed's accuracy on one test set.",
        "",
        "| scenario (seed sd) | seeds | paired | covers 0, now | found, now | detectable, now | covers 0, before "
        "| found, before | covers 0, one t | found, one t | found, Welch alone |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in res["null"]:
        spread = res["spread"][r["scenario"]]
        lines.append(
            f"| {r['scenario']} ({100 * spread:.1f} points) | {r['seeds']} | {'yes' if r['paired'] else 'no'} "
            f"| {_pct(r['coverage'])}% | {_pct(r['found'])}% | {100 * r['detectable']:.1f} points "
            f"| {_pct(r['coverage_old'])}% | {_pct(r['found_old'])}% | {_pct(r['coverage_one_t'])}% "
            f"| {_pct(r['found_one_t'])}% | {_pct(r['found_welch'])}% |"
        )
    lines += [
        "",
        f"Power: the arms {100 * GAP:.0f} points apart ({POWER_SCENARIO}), {old_draws:,} draws per cell, the same runs "
        "judged both ways (Monte Carlo error about 1.1 points):",
        "",
        "| seeds | paired | found, now | found, before | found, one t | covers the truth, now "
        "| covers the truth, before |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in res["power"]:
        lines.append(
            f"| {r['seeds']} | {'yes' if r['paired'] else 'no'} | {_pct(r['found'])}% | {_pct(r['found_old'])}% "
            f"| {_pct(r['found_one_t'])}% | {_pct(r['coverage'])}% | {_pct(r['coverage_old'])}% |"
        )
    lines += [
        "",
        f"At the detectable difference itself (the mean `detectable` of the null cells above, {POWER_SCENARIO}; "
        f"{draws:,} draws; it promises 80%):",
        "",
        "| seeds | paired | difference | found, now |",
        "|---|---|---|---|",
    ]
    for r in res["at_detectable"]:
        lines.append(
            f"| {r['seeds']} | {'yes' if r['paired'] else 'no'} | {100 * r['gap']:.1f} points | {_pct(r['found'])}% |"
        )
    return "\n".join(
        line if line.startswith("|") else textwrap.fill(line, 120, break_on_hyphens=False) for line in lines
    )


def write_doc(text: str) -> None:
    doc = DOC.read_text()
    if START not in doc or END not in doc:
        raise SystemExit(f"{DOC} has no {START} ... {END} block to write into.")
    head, rest = doc.split(START, 1)
    DOC.write_text(f"{head}{START}\n{text}\n{END}{rest.split(END, 1)[1]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=4000, help="null and at-detectable draws per cell (now)")
    ap.add_argument("--old-draws", type=int, default=1000, help="draws per cell judged the old way, and power's")
    ap.add_argument("--resamples", type=int, default=1000, help="the old bootstrap's draws")
    ap.add_argument("--no-write", action="store_true", help="print the table, leave docs/statistics.md alone")
    ap.add_argument("--from-json", action="store_true", help="no simulation: the doc's table from the saved results")
    args = ap.parse_args()
    saved = ROOT / "benchmarks" / "results_verdict_calibration.json"
    if args.from_json:
        res = json.loads(saved.read_text())
        args.draws, args.old_draws, args.resamples = (res["settings"][k] for k in ("draws", "old_draws", "resamples"))
        write_doc(markdown(res, args.draws, args.old_draws, args.resamples))
        return
    t0 = time.time()
    res = run(args.draws, args.old_draws, args.resamples)
    res["machine"] = dict(
        python=platform.python_version(), numpy=np.__version__, seconds=round(time.time() - t0),
        date=time.strftime("%Y-%m-%d"),
    )  # fmt: skip
    res["settings"] = dict(draws=args.draws, old_draws=args.old_draws, resamples=args.resamples)
    text = markdown(res, args.draws, args.old_draws, args.resamples)
    print(text)
    if not args.no_write:
        saved.write_text(json.dumps(res, indent=1) + "\n")
        write_doc(text)


if __name__ == "__main__":
    main()
