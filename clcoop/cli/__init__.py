"""Command-line entry points: clcoop (compile_main), clcoop-run, clcoop-layout."""
