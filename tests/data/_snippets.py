"""Shared by the ``make_*_reference.py`` scripts that record one-line snippets: runs
each under TensorFlow and prints the fixture (``tests/_tf_programs.check_snippet``
reads it)."""

import json


def run(source, ns):
    """What a snippet raised (class and text) and its ``result``, if it set one."""
    ns = dict(ns)
    rec = {"source": source, "error": None}
    try:
        exec(source, ns)
    except Exception as e:  # noqa: BLE001 - compared with what tapers raises
        rec["error"] = [type(e).__name__, str(e)]
    if "result" in ns:
        rec["result"] = ns["result"]
    return rec


def dump(tf, snippets, **names):
    """Prints the fixture of `snippets` (name -> source), run with ``tf`` and `names`."""
    programs = {k: run(s, {"tf": tf, **names}) for k, s in snippets.items()}
    print(json.dumps({"tensorflow": tf.__version__, "programs": programs}, indent=1))
