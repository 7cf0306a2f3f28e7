"""``python -m gpuvalue.flows.cli``: the command line, as the ``gpuvalue`` script runs it."""

from gpuvalue.flows.cli import main

main()
