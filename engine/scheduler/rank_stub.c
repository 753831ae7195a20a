/* What mpiexec starts for a rank of `run -n N`: a stub whose rank the zygote forks
 * (zygote.py, started by zygote_start.py), run as `rank-stub ADDRESS COMMAND...`.
 *
 * It is C, built by ./setup.sh (setup.d/10-mpi.sh), because every rank of every job starts one
 * while the engine starts on the same cores: as a Python script (`python -I -S`, no module of
 * ours) it cost 14-15 ms of CPU a rank, this costs well under one.
 *
 * It connects to the zygote at ADDRESS (a Unix socket: a file when ADDRESS is absolute, else
 * abstract), hands it its working directory, COMMAND (which says what the rank is: the engine or
 * a worker), its environment and descriptors (the standard streams, and the PMI socket the
 * launcher gave it), and learns its rank's PID. It then stands for the rank towards the
 * launcher: the signals it gets go on to the rank, and it ends as the rank ended, by the same
 * signal if one killed it. If the zygote cannot be reached, or turns the stub away, the stub
 * execs COMMAND, the worker rank's own (`launch.worker_rank_command`, or the engine's command
 * line), and is a rank as those started without a zygote are.
 *
 * The request is one message: the directory, the descriptors' numbers joined by commas, the
 * number of COMMAND's words, the words, then every NAME=VALUE of the environment, all joined by
 * NUL bytes; the descriptors ride along (SCM_RIGHTS). The zygote answers with two words
 * (`!i`, zygote.WORD): the rank's PID, then its exit code (negative: the signal that ended it).
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

extern char **environ;

enum { MAX_TARGETS = 5, MAX_REQUEST = 1 << 20 };

static volatile sig_atomic_t rank_pid;

static void forward(int signum) {
    kill((pid_t)rank_pid, signum);
}

/* Become the rank ourselves: exec COMMAND as it is (no search of PATH, as os.execv). */
static void become_a_rank_ourselves(char **command) {
    execv(command[0], command);
    fprintf(stderr, "rank-stub: cannot run %s: %s\n", command[0], strerror(errno));
    _exit(127);
}

/* Connect to ADDRESS: a socket file's path (through its directory's descriptor if it is too long
 * for a socket address, as the zygote bound it), or an abstract name. */
static int connect_to(int connection, const char *address) {
    struct sockaddr_un where;
    memset(&where, 0, sizeof where);
    where.sun_family = AF_UNIX;
    size_t length = strlen(address);
    if (address[0] != '/') {
        if (length + 1 > sizeof where.sun_path)
            return -1;
        memcpy(where.sun_path + 1, address, length); /* abstract: a leading NUL */
        return connect(connection, (struct sockaddr *)&where,
                       (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + length));
    }
    if (length < sizeof where.sun_path) {
        memcpy(where.sun_path, address, length);
        return connect(connection, (struct sockaddr *)&where, sizeof where);
    }
    const char *slash = strrchr(address, '/');
    char parent[PATH_MAX];
    size_t parent_length = slash == address ? 1 : (size_t)(slash - address);
    if (parent_length >= sizeof parent)
        return -1;
    memcpy(parent, address, parent_length);
    parent[parent_length] = '\0';
    int directory = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (directory < 0)
        return -1;
    int written = snprintf(where.sun_path, sizeof where.sun_path, "/proc/self/fd/%d/%s", directory, slash + 1);
    int result = written > 0 && (size_t)written < sizeof where.sun_path
                     ? connect(connection, (struct sockaddr *)&where, sizeof where)
                     : -1;
    close(directory);
    return result;
}

/* The next word from the zygote; 0 when it has closed the connection (or it failed). */
static int receive_word(int connection, int32_t *word) {
    uint32_t raw;
    ssize_t count;
    do
        count = recv(connection, &raw, sizeof raw, 0);
    while (count < 0 && errno == EINTR);
    if (count != (ssize_t)sizeof raw)
        return 0;
    *word = (int32_t)ntohl(raw);
    return 1;
}

/* Append `text` and a NUL separator (none before the first field) to the request. */
static int append(char *request, size_t *used, const char *text) {
    size_t length = strlen(text);
    size_t separator = *used ? 1 : 0;
    if (*used + separator + length > MAX_REQUEST)
        return 0;
    if (separator)
        request[(*used)++] = '\0';
    memcpy(request + *used, text, length);
    *used += length;
    return 1;
}

/* Send the request with our descriptors; 1 if it went. */
static int send_request(int connection, int argc, char **argv) {
    int targets[MAX_TARGETS] = {0, 1, 2};
    int count = 3;
    const char *names[] = {"PMI_FD", "HYDI_CONTROL_FD"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *value = getenv(names[i]);
        if (value != NULL)
            targets[count++] = atoi(value);
    }
    static char request[MAX_REQUEST];
    size_t used = 0;
    char directory[PATH_MAX], numbers[64], words[16];
    if (getcwd(directory, sizeof directory) == NULL)
        return 0;
    int at = 0;
    for (int i = 0; i < count; i++)
        at += snprintf(numbers + at, sizeof numbers - (size_t)at, i ? ",%d" : "%d", targets[i]);
    snprintf(words, sizeof words, "%d", argc - 2);
    if (!append(request, &used, directory) || !append(request, &used, numbers) || !append(request, &used, words))
        return 0;
    for (int i = 2; i < argc; i++)
        if (!append(request, &used, argv[i]))
            return 0;
    for (char **entry = environ; *entry != NULL; entry++)
        if (!append(request, &used, *entry))
            return 0;

    struct iovec part = {request, used};
    union {
        char buffer[CMSG_SPACE(sizeof targets)];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1, .msg_control = control.buffer,
                             .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)count)};
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)count);
    memcpy(CMSG_DATA(header), targets, sizeof(int) * (size_t)count);
    ssize_t sent;
    do
        sent = sendmsg(connection, &message, 0);
    while (sent < 0 && errno == EINTR);
    return sent == (ssize_t)used;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: rank-stub ADDRESS COMMAND...\n");
        return 2;
    }
    int connection = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    int32_t rank;
    if (connection < 0 || connect_to(connection, argv[1]) != 0 || !send_request(connection, argc, argv) ||
        !receive_word(connection, &rank)) {
        if (connection >= 0)
            close(connection);
        become_a_rank_ourselves(argv + 2);
    }
    rank_pid = rank;
    const int forwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2};
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = forward;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
        sigaction(forwarded[i], &action, NULL);

    int32_t ended;
    if (!receive_word(connection, &ended)) { /* the zygote is gone: so is what would say how the rank ended */
        kill((pid_t)rank, SIGKILL);
        _exit(1);
    }
    if (ended < 0) {
        int signum = -ended;
        if (signum != SIGKILL)
            signal(signum, SIG_DFL);
        sigset_t only;
        sigemptyset(&only);
        sigaddset(&only, signum);
        sigprocmask(SIG_UNBLOCK, &only, NULL);
        kill(getpid(), signum);
        _exit(128 + signum);
    }
    _exit(ended);
}
