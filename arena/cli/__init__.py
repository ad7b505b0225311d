"""The `arena` command line (typer + rich)."""
