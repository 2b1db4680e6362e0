from kpt_fn.cli import run

run()
