"""The README's twin table from bench/twin_workloads.py's JSON files: tidegate / queue and
eager / queue, peak per worker / makespan / bytes moved, one column pair per file.

    python bench/twin_table.py bench/results/X-twin-20x4.json bench/results/X-twin-100x4.json
"""
import json
import sys


def ratios(res: dict, policy: str) -> str:
    q, p = res["queue"], res[policy]
    moved = p["bytes_transferred"] / q["bytes_transferred"] if q["bytes_transferred"] else 1.0
    return (f"{p['peak_per_worker'] / q['peak_per_worker']:.2f} / "
            f"{p['makespan'] / q['makespan']:.2f} / {moved:.2f}")


def main(paths: list[str]) -> None:
    runs = [json.load(open(p)) for p in paths]
    shapes = [f"{r['workers']} x {r['threads']}" for r in runs]
    cols = [(pol, i) for pol in ("tidegate", "eager") for i in range(len(runs))]
    print("| workload | " + " | ".join(f"{pol}, {shapes[i]}" for pol, i in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for name in runs[0]["results"]:
        cells = [ratios(runs[i]["results"][name], pol)
                 if pol in runs[i]["results"].get(name, {}) else "" for pol, i in cols]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
