"""What the command-line tools share about their output: file modes, a closed stdout, usage errors."""
import argparse
import os
import sys


def new_file_mode(path):
    """Keep an existing file's permissions; a new file gets 0666 minus the umask, like clang
    (tempfile.mkstemp creates 0600 files: outputs made through one are chmod-ed to this)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def stdout_closed():
    """Call after a BrokenPipeError on stdout (`clcoop-layout ... | head -1`): stop quietly.

    Points stdout at /dev/null so that the interpreter's final flush does not report the
    broken pipe again (the recipe of Python's signal module documentation)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser with the tools' exit status for a usage error: 1, as for any other
    error (argparse's own is 2), after the usage line and 'prog: error: message'."""

    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(1)
