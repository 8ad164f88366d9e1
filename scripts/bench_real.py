"""Every real set side by side: the issue's name for :mod:`scripts/bench/real.py`, which this runs
with the same arguments (see its docstring for the sets, the columns and the command).

    python scripts/bench_real.py --weeks-per-half 6 --profiles naive,bm25,hybrid,temporal,default --out DIR
"""

import runpy
import sys
from pathlib import Path

if __name__ == "__main__":
    script = Path(__file__).resolve().parent / "bench" / "real.py"
    sys.argv[0] = str(script)
    runpy.run_path(str(script), run_name="__main__")
