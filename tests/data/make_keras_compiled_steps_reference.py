# Generates keras_compiled_steps_reference.json with TensorFlow 2.21 / Keras 3 (not run by the tests):
#   /tmp/tfvenv/bin/python tests/data/make_keras_compiled_steps_reference.py \
#       > tests/data/keras_compiled_steps_reference.json
# Records how Keras 3 runs fit/evaluate/predict's steps: compiled by default (a Python side
# effect in train_step/test_step/predict_step happens when a step is traced, not at each batch),
# eagerly under compile(run_eagerly=True); the run_eagerly/jit_compile attributes compile
# leaves (on a CPU-only machine); train_function before and after fit and after a new compile;
# a learning rate a callback changes mid-fit reaching the compiled step; and, with
# steps_per_execution, the batch indices callbacks see and the logs they get.
import json
import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras  # noqa: E402
from keras_compiled_steps_programs import counted_run, lr_run, steps_per_execution_run  # noqa: E402

out = {"versions": {"keras": keras.__version__}}
out["counted"] = {f"run_eagerly={e}": counted_run(keras, run_eagerly=e) for e in (False, True)}
out["lr"] = {f"run_eagerly={e}": lr_run(keras, run_eagerly=e) for e in (False, True)}
out["steps_per_execution"] = {str(n): steps_per_execution_run(keras, n) for n in (1, 3, 4, 10)}
json.dump(out, sys.stdout, indent=1, sort_keys=True)
print()
