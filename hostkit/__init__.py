"""The ground floor: host plumbing every other package stands on, importing none of them.

Processes and their records (`processes`, `records`), free ports and waiting for one
(`ports`), mounts, unmounts and FUSE checks (`mounts`), the sweep of what killed MPICH
ranks leave behind (`shm`), how a new Python process of ours starts (`program`), content
digests of files as run logs record them (`digests`), the errors every floor shares with
the exit statuses and the redaction of secrets (`errors`), SIGTERM unwinding a long
command like Ctrl-C (`interrupt`), and when a process started and whether it has ended
(`process_start`).
See docs/architecture.md for the floors.
"""
