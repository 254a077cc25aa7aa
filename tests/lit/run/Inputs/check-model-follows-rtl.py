"""Each `tandem run --device rtl --predict --json` output named on the
command line (PATH, or PATH:CYCLES to allow that many cycles of
difference): the model's cycles are the rtl's, and its memory figures are
the rtl's counters of the same names (model-follows-rtl.test)."""
import json
import sys

failed = False
for arg in sys.argv[1:]:
    path, _, slack = arg.partition(":")
    run = json.load(open(path))
    prediction, counters = run["prediction"], run["counters"]
    name = f"{run['kernel']} ({path})"
    if abs(prediction["cycles"] - counters["cycles"]) > float(slack or 0) + 1e-6:
        print(f"{name}: the model predicts {prediction['cycles']} cycles, the rtl took "
              f"{counters['cycles']}")
        failed = True
    for key, value in prediction["memory"].items():
        if value != counters[key]:
            print(f"{name}: the model's {key} is {value}, the rtl's {counters[key]}")
            failed = True
sys.exit(1 if failed else 0)
