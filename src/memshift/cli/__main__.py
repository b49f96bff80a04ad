"""`python -m memshift.cli`, as the installed `memshift` command."""

from memshift.cli import main

main()
