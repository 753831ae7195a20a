"""The roof: the `swiftcloud` command line, which assembles every package's commands.

`packages.py` gathers what each package contributes (its commands, the stores and
services it registers, `run --cluster`); `cli.py` owns `main()` and turns errors into
exit statuses. Nothing imports this package: a process that needs the whole product
runs it (`python -m swiftcloud`, see `hostkit.program`).
"""
