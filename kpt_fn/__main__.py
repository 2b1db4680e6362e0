from kpt_fn.cli import main

main()
