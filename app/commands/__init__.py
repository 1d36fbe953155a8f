"""One module per `pagewise` subcommand (see app/cli.py)."""
