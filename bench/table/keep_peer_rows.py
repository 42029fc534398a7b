#!/usr/bin/env python3
"""Keeps a stage's peer rows from the run that measured the stage, for a partial `make table`.

A stage page pairs the stage's own times with its peers' (stage 06 with torch.sort(dim=-1),
stage 07 with torch.topk), and both must come from one run. When `STAGE_BENCHES` leaves a stage
out, its own JSON stays the committed one, so its peer rows must stay the committed ones too:
this script removes from the new torch JSON every row whose name starts with one of the given
prefixes and puts the committed torch JSON's rows with those prefixes in their place, each
marked with the date of the run it comes from (``kept_from_run``); the document's context says
which prefixes were kept and from when (``sortlab_kept_rows``). Nothing else changes.

    keep_peer_rows.py --into build/table/torch.json \
        --committed docs/results/NVIDIA-H100-80GB-HBM3-torch.json \
        --prefix torch-topk/ --why "stage 07 was not run"

A committed file that is missing, or holds none of the rows, leaves the new rows where they are
and says so (exit 0): a first run on a new GPU has nothing to keep.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List, Optional, Sequence


def keep_rows(new: Dict[str, Any], committed: Dict[str, Any], prefixes: Sequence[str],
              why: str) -> int:
    """Replaces new's rows with the given name prefixes by committed's; returns how many rows
    were kept from committed (0 leaves new unchanged)."""
    def matches(row: Dict[str, Any]) -> bool:
        return any(str(row.get("name", "")).startswith(p) for p in prefixes)

    kept: List[Dict[str, Any]] = [dict(row) for row in committed.get("benchmarks", [])
                                  if matches(row)]
    if not kept:
        return 0
    run_date = str(committed.get("context", {}).get("date", "unknown date"))
    for row in kept:
        row["kept_from_run"] = run_date
    new["benchmarks"] = [row for row in new.get("benchmarks", []) if not matches(row)] + kept
    notes = new.setdefault("context", {}).get("sortlab_kept_rows", "")
    note = (f"{', '.join(prefixes)} rows from the run of {run_date} ({why}), kept with the "
            f"stage results they are compared with")
    new["context"]["sortlab_kept_rows"] = f"{notes}; {note}" if notes else note
    return len(kept)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--into", required=True, help="the new JSON, rewritten in place")
    parser.add_argument("--committed", required=True, help="the committed JSON of the same GPU")
    parser.add_argument("--prefix", action="append", required=True,
                        help="name prefix of the rows to keep (repeatable)")
    parser.add_argument("--why", default="the stage was not run", help="said in the context")
    args = parser.parse_args(argv)
    if not os.path.exists(args.committed):
        print(f"keep_peer_rows: no {args.committed}: the new {', '.join(args.prefix)} rows stay")
        return 0
    with open(args.into, encoding="utf-8") as handle:
        new = json.load(handle)
    with open(args.committed, encoding="utf-8") as handle:
        committed = json.load(handle)
    count = keep_rows(new, committed, args.prefix, args.why)
    if count == 0:
        print(f"keep_peer_rows: {args.committed} has no {', '.join(args.prefix)} rows: the new "
              "ones stay")
        return 0
    with open(args.into, "w", encoding="utf-8") as handle:
        json.dump(new, handle, indent=2)
        handle.write("\n")
    print(f"keep_peer_rows: {count} {', '.join(args.prefix)} rows kept from {args.committed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
