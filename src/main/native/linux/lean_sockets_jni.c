/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * The natives of lean/Sockets.java: each checks what Java passed, calls its function of
 * lean_sockets.c, and turns its -errno into Java's return code (Sockets.EOF, UNAVAILABLE,
 * INTERRUPTED) or into the exception the JDK's own socket channels throw for it, worded as
 * strerror words it.
 *
 * Direct buffers come as addresses (of their memory, from OffHeap.address, and of off-heap
 * struct iovec arrays): Java keeps each buffer reachable while the kernel uses its memory.
 *
 * Heap arrays are read and written in place, between GetPrimitiveArrayCritical and its release:
 * the fd is non-blocking, so the system call in between never waits for a peer, and nothing else
 * runs there (a critical region allows no other JNI call and holds up the garbage collector).
 */
#include "lean_sockets.h"
#include "ns_jni.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

/* Sockets.EOF, UNAVAILABLE, INTERRUPTED: the outcomes that are not errors. */
#define JAVA_EOF (-1)
#define JAVA_UNAVAILABLE (-2)
#define JAVA_INTERRUPTED (-3)

_Static_assert(sizeof(jint) == sizeof(int), "pollerWait copies ints into a jint array");

#define ILLEGAL_ARGUMENT "java/lang/IllegalArgumentException"

/* ---- exceptions ---- */

/* What the JDK's sun.nio.ch.Net throws for a socket call's errno (handleSocketError in Net.c). */
static void throw_socket_error(JNIEnv *env, int err)
{
    const char *class_name;
    switch (err) {
    case EPROTO:
        class_name = "java/net/ProtocolException";
        break;
    case ECONNREFUSED:
    case ETIMEDOUT:
    case ENOTCONN:
        class_name = "java/net/ConnectException";
        break;
    case EHOSTUNREACH:
        class_name = "java/net/NoRouteToHostException";
        break;
    case EADDRINUSE:
    case EADDRNOTAVAIL:
    case EACCES:
        class_name = "java/net/BindException";
        break;
    default:
        class_name = "java/net/SocketException";
        break;
    }
    ns_throw_errno(env, class_name, err);
}

/* What the JDK throws for a failed read: a reset as its ConnectionResetException, a SocketException. */
static void throw_read_error(JNIEnv *env, int err)
{
    if (err == ECONNRESET)
        ns_throw(env, "java/net/SocketException", "Connection reset");
    else
        ns_throw_errno(env, "java/io/IOException", err);
}

/* What the JDK throws for a failed write: an IOException in the system's words, a reset's too. */
static void throw_write_error(JNIEnv *env, int err)
{
    ns_throw_errno(env, "java/io/IOException", err);
}

/* ---- arguments ---- */

static bool bad_fd(JNIEnv *env, jint fd)
{
    if (fd >= 0)
        return false;
    ns_throw(env, ILLEGAL_ARGUMENT, "negative file descriptor");
    return true;
}

static bool bad_length(JNIEnv *env, jint length)
{
    if (length >= 0)
        return false;
    ns_throw(env, ILLEGAL_ARGUMENT, "negative length");
    return true;
}

/* [offset, offset + length) outside array, or array null; written so that nothing overflows. */
static bool bad_range(JNIEnv *env, jbyteArray array, jint offset, jint length)
{
    if (array == NULL) {
        ns_throw(env, "java/lang/NullPointerException", "array");
        return true;
    }
    jsize size = (*env)->GetArrayLength(env, array);
    if (offset < 0 || length < 0 || offset > size - length) {
        ns_throw(env, ILLEGAL_ARGUMENT, "offset or length outside the array");
        return true;
    }
    return false;
}

/* The sockaddr for Java's address, or false with an exception pending. */
static bool to_sockaddr(JNIEnv *env, jboolean inet6_socket, jbyteArray address, jint port, jint scope_id,
                        union lean_sockaddr *out, socklen_t *out_length)
{
    if (address == NULL) {
        ns_throw(env, "java/lang/NullPointerException", "address");
        return false;
    }
    jsize length = (*env)->GetArrayLength(env, address);
    if ((length != 4 && length != 16) || port < 0 || port > 65535) {
        ns_throw(env, ILLEGAL_ARGUMENT, "an address of 4 or 16 bytes and a port of 0 to 65535");
        return false;
    }
    uint8_t bytes[16];
    (*env)->GetByteArrayRegion(env, address, 0, length, (jbyte *)bytes);
    if (lean_sockaddr(inet6_socket, bytes, length, port, (uint32_t)scope_id, out, out_length) < 0) {
        /* The only refusal left: an IPv6 address on an IPv4 socket. The JDK's words for it. */
        ns_throw(env, "java/net/SocketException", "Protocol family unavailable");
        return false;
    }
    return true;
}

/* ---- results ---- */

/*
 * A call's result of 0 or more as it is; -not_yet (0: none) as UNAVAILABLE, -EINTR as INTERRUPTED,
 * any other -errno thrown by throw_error.
 */
static jint call_result(JNIEnv *env, int n, int not_yet, void (*throw_error)(JNIEnv *, int))
{
    if (n >= 0)
        return n;
    if (n == -not_yet)
        return JAVA_UNAVAILABLE;
    if (n == -EINTR)
        return JAVA_INTERRUPTED;
    throw_error(env, -n);
    return 0;
}

static jint read_result(JNIEnv *env, int n)
{
    return n == 0 ? JAVA_EOF : call_result(env, n, EAGAIN, throw_read_error);
}

static jint write_result(JNIEnv *env, int n)
{
    return call_result(env, n, EAGAIN, throw_write_error);
}

/* readv and writev: counts that may pass 2 GiB, else as read_result and write_result. */
static jlong vector_result(JNIEnv *env, int64_t n, bool reading)
{
    if (n == 0 && reading)
        return JAVA_EOF;
    if (n >= 0)
        return n;
    return reading ? read_result(env, (int)n) : write_result(env, (int)n); /* an -errno */
}

/*
 * An address as Sockets.java takes it (Sockets.ADDRESS_BYTES): the address's 16 bytes (an IPv4
 * address in the first 4), the port in 2, the family (4 or 6) in 1, a zero, the scope id in 4;
 * big-endian.
 */
#define ADDRESS_BYTES 24

static void put_address(JNIEnv *env, const struct lean_address *address, jbyteArray array)
{
    uint8_t bytes[ADDRESS_BYTES];
    memcpy(bytes, address->bytes, 16);
    bytes[16] = (uint8_t)(address->port >> 8);
    bytes[17] = (uint8_t)address->port;
    bytes[18] = (uint8_t)address->family;
    bytes[19] = 0;
    for (int i = 0; i < 4; i++)
        bytes[20 + i] = (uint8_t)(address->scope_id >> (24 - 8 * i));
    (*env)->SetByteArrayRegion(env, array, 0, ADDRESS_BYTES, (const jbyte *)bytes);
}

/* A byte[ADDRESS_BYTES] (or longer) to take an address. */
static bool bad_address_array(JNIEnv *env, jbyteArray array)
{
    if (array == NULL) {
        ns_throw(env, "java/lang/NullPointerException", "address");
        return true;
    }
    if ((*env)->GetArrayLength(env, array) < ADDRESS_BYTES) {
        ns_throw(env, ILLEGAL_ARGUMENT, "an address array of 24 bytes");
        return true;
    }
    return false;
}

/* GetPrimitiveArrayCritical's NULL: out of memory, usually with the error already pending. */
static void throw_unless_pending(JNIEnv *env)
{
    if (!(*env)->ExceptionCheck(env))
        ns_throw(env, "java/lang/OutOfMemoryError", "cannot pin the array");
}

/* ---- natives ---- */

static jint JNICALL sockets_socket(JNIEnv *env, jclass cls, jboolean inet6)
{
    (void)cls;
    int fd = lean_socket(inet6);
    if (fd < 0)
        throw_socket_error(env, -fd);
    return fd;
}

static void JNICALL sockets_bind(JNIEnv *env, jclass cls, jint fd, jboolean inet6_socket, jbyteArray address,
                                 jint port, jint scope_id)
{
    (void)cls;
    union lean_sockaddr sockaddr;
    socklen_t length;
    if (bad_fd(env, fd) || !to_sockaddr(env, inet6_socket, address, port, scope_id, &sockaddr, &length))
        return;
    int err = lean_bind(fd, &sockaddr, length);
    if (err < 0)
        throw_socket_error(env, -err);
}

static void JNICALL sockets_listen(JNIEnv *env, jclass cls, jint fd, jint backlog)
{
    (void)cls;
    if (bad_fd(env, fd))
        return;
    int err = lean_listen(fd, backlog);
    if (err < 0)
        throw_socket_error(env, -err);
}

static jint JNICALL sockets_accept(JNIEnv *env, jclass cls, jint fd, jbyteArray peer)
{
    (void)cls;
    if (bad_fd(env, fd) || bad_address_array(env, peer))
        return 0;
    struct lean_address address;
    int accepted = lean_accept(fd, &address);
    if (accepted >= 0) {
        put_address(env, &address, peer); /* cannot fail: the array is long enough */
        return accepted;
    }
    if (accepted == -EAGAIN)
        return JAVA_UNAVAILABLE;
    /* ECONNABORTED: the peer gave up while queued; the next one may be waiting. */
    if (accepted == -EINTR || accepted == -ECONNABORTED)
        return JAVA_INTERRUPTED;
    ns_throw_errno(env, "java/io/IOException", -accepted);
    return 0;
}

static jint JNICALL sockets_connect(JNIEnv *env, jclass cls, jint fd, jboolean inet6_socket, jbyteArray address,
                                    jint port, jint scope_id)
{
    (void)cls;
    union lean_sockaddr sockaddr;
    socklen_t length;
    if (bad_fd(env, fd) || !to_sockaddr(env, inet6_socket, address, port, scope_id, &sockaddr, &length))
        return 0;
    return call_result(env, lean_connect(fd, &sockaddr, length), EINPROGRESS, throw_socket_error);
}

static jint JNICALL sockets_finish_connect(JNIEnv *env, jclass cls, jint fd)
{
    (void)cls;
    if (bad_fd(env, fd))
        return 0;
    int n = lean_finish_connect(fd);
    if (n > 0)
        return n;
    if (n == 0)
        return JAVA_UNAVAILABLE;
    throw_socket_error(env, -n);
    return 0;
}

static void JNICALL sockets_local_address(JNIEnv *env, jclass cls, jint fd, jbyteArray array)
{
    (void)cls;
    if (bad_fd(env, fd) || bad_address_array(env, array))
        return;
    struct lean_address address;
    int err = lean_local_address(fd, &address);
    if (err < 0)
        throw_socket_error(env, -err);
    else
        put_address(env, &address, array);
}

/* One read into, or write from, a direct buffer's memory at address: Java found it with
   OffHeap.address and keeps the buffer reachable across the call. */
static jint address_transfer(JNIEnv *env, jint fd, jlong address, jint length, bool reading)
{
    if (bad_fd(env, fd) || bad_length(env, length) || length == 0)
        return 0;
    void *memory = (void *)(intptr_t)address;
    return reading ? read_result(env, lean_read(fd, memory, length))
                   : write_result(env, lean_write(fd, memory, length));
}

static jint JNICALL sockets_read_at(JNIEnv *env, jclass cls, jint fd, jlong address, jint length)
{
    (void)cls;
    return address_transfer(env, fd, address, length, true);
}

static jint JNICALL sockets_write_at(JNIEnv *env, jclass cls, jint fd, jlong address, jint length)
{
    (void)cls;
    return address_transfer(env, fd, address, length, false);
}

/* One read into, or write from, array[offset, offset + length), pinned for the system call alone. */
static jint array_transfer(JNIEnv *env, jint fd, jbyteArray array, jint offset, jint length, bool reading)
{
    if (bad_fd(env, fd) || bad_range(env, array, offset, length) || length == 0)
        return 0;
    jbyte *bytes = (*env)->GetPrimitiveArrayCritical(env, array, NULL);
    if (bytes == NULL) {
        throw_unless_pending(env);
        return 0;
    }
    int n = reading ? lean_read(fd, bytes + offset, length) : lean_write(fd, bytes + offset, length);
    /* JNI_ABORT after a write: nothing changed, so a copy need not be written back. */
    (*env)->ReleasePrimitiveArrayCritical(env, array, bytes, reading ? 0 : JNI_ABORT);
    return reading ? read_result(env, n) : write_result(env, n);
}

static jint JNICALL sockets_read_array(JNIEnv *env, jclass cls, jint fd, jbyteArray array, jint offset,
                                       jint length)
{
    (void)cls;
    return array_transfer(env, fd, array, offset, length, true);
}

static jint JNICALL sockets_write_array(JNIEnv *env, jclass cls, jint fd, jbyteArray array, jint offset,
                                        jint length)
{
    (void)cls;
    return array_transfer(env, fd, array, offset, length, false);
}

static bool bad_count(JNIEnv *env, jint count)
{
    if (count >= 0 && count <= IOV_MAX)
        return false;
    ns_throw(env, ILLEGAL_ARGUMENT, "iovec count outside 0 to IOV_MAX");
    return true;
}

static jlong JNICALL sockets_readv(JNIEnv *env, jclass cls, jint fd, jlong iovecs, jint count)
{
    (void)cls;
    if (bad_fd(env, fd) || bad_count(env, count) || count == 0)
        return 0;
    return vector_result(env, lean_readv(fd, (const struct iovec *)(intptr_t)iovecs, count), true);
}

static jlong JNICALL sockets_writev(JNIEnv *env, jclass cls, jint fd, jlong iovecs, jint count)
{
    (void)cls;
    if (bad_fd(env, fd) || bad_count(env, count) || count == 0)
        return 0;
    return vector_result(env, lean_writev(fd, (const struct iovec *)(intptr_t)iovecs, count), false);
}

static void JNICALL sockets_shutdown(JNIEnv *env, jclass cls, jint fd, jint how)
{
    (void)cls;
    if (bad_fd(env, fd))
        return;
    if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR) {
        ns_throw(env, ILLEGAL_ARGUMENT, "not SHUT_RD, SHUT_WR or SHUT_RDWR");
        return;
    }
    int err = lean_shutdown(fd, how);
    if (err < 0)
        throw_socket_error(env, -err);
}

static void JNICALL sockets_close(JNIEnv *env, jclass cls, jint fd)
{
    (void)cls;
    if (bad_fd(env, fd))
        return;
    int err = lean_close(fd);
    if (err < 0)
        ns_throw_errno(env, "java/io/IOException", -err);
}

static jint JNICALL sockets_poll(JNIEnv *env, jclass cls, jint fd, jint events, jint timeout_ms)
{
    (void)cls;
    if (bad_fd(env, fd))
        return 0;
    return call_result(env, lean_poll(fd, events, timeout_ms), 0, throw_socket_error);
}

static jint JNICALL sockets_available(JNIEnv *env, jclass cls, jint fd)
{
    (void)cls;
    if (bad_fd(env, fd))
        return 0;
    int n = lean_available(fd);
    if (n < 0)
        throw_socket_error(env, -n);
    return n;
}

/* 1 when sent, UNAVAILABLE when the send buffer is full: the caller decides what that means. */
static jint JNICALL sockets_send_urgent_data(JNIEnv *env, jclass cls, jint fd, jint data)
{
    (void)cls;
    if (bad_fd(env, fd))
        return 0;
    int err = lean_send_urgent(fd, data);
    return write_result(env, err == 0 ? 1 : err);
}

/* The JDK's Net.setIntOption0 and getIntOption0 throw SocketException whatever the errno. */
static void JNICALL sockets_set_int_option(JNIEnv *env, jclass cls, jint fd, jint level, jint name, jint value)
{
    (void)cls;
    if (bad_fd(env, fd))
        return;
    int err = lean_set_int_option(fd, level, name, value);
    if (err < 0)
        ns_throw_errno(env, "java/net/SocketException", -err);
}

static jint JNICALL sockets_get_int_option(JNIEnv *env, jclass cls, jint fd, jint level, jint name)
{
    (void)cls;
    if (bad_fd(env, fd))
        return 0;
    int value = 0;
    int err = lean_get_int_option(fd, level, name, &value);
    if (err < 0)
        ns_throw_errno(env, "java/net/SocketException", -err);
    return value;
}

static void JNICALL sockets_set_linger(JNIEnv *env, jclass cls, jint fd, jint seconds)
{
    (void)cls;
    if (bad_fd(env, fd))
        return;
    int err = lean_set_linger(fd, seconds);
    if (err < 0)
        ns_throw_errno(env, "java/net/SocketException", -err);
}

static jint JNICALL sockets_get_linger(JNIEnv *env, jclass cls, jint fd)
{
    (void)cls;
    if (bad_fd(env, fd))
        return 0;
    int seconds = -1;
    int err = lean_get_linger(fd, &seconds);
    if (err < 0)
        ns_throw_errno(env, "java/net/SocketException", -err);
    return seconds;
}

static jint JNICALL sockets_poller_create(JNIEnv *env, jclass cls)
{
    (void)cls;
    int epfd = lean_poller_create();
    if (epfd < 0)
        ns_throw_errno(env, "java/io/IOException", -epfd);
    return epfd;
}

static void JNICALL sockets_poller_arm(JNIEnv *env, jclass cls, jint epfd, jint fd, jint events)
{
    (void)cls;
    if (bad_fd(env, epfd) || bad_fd(env, fd))
        return;
    if (events == 0 || (events & ~(POLLIN | POLLOUT)) != 0) {
        ns_throw(env, ILLEGAL_ARGUMENT, "events other than POLLIN and POLLOUT");
        return;
    }
    int err = lean_poller_arm(epfd, fd, events);
    if (err < 0)
        ns_throw_errno(env, "java/io/IOException", -err);
}

static jint JNICALL sockets_poller_wait(JNIEnv *env, jclass cls, jint epfd, jintArray ready_fds, jint timeout_ms)
{
    (void)cls;
    if (bad_fd(env, epfd))
        return 0;
    if (ready_fds == NULL) {
        ns_throw(env, "java/lang/NullPointerException", "readyFds");
        return 0;
    }
    jsize capacity = (*env)->GetArrayLength(env, ready_fds);
    if (capacity == 0) {
        ns_throw(env, ILLEGAL_ARGUMENT, "no room for a ready fd");
        return 0;
    }
    int fds[LEAN_POLLER_MAX_EVENTS];
    int n = lean_poller_wait(epfd, fds, capacity, timeout_ms);
    if (n == -EINTR)
        return JAVA_INTERRUPTED;
    if (n < 0) {
        ns_throw_errno(env, "java/io/IOException", -n);
        return 0;
    }
    (*env)->SetIntArrayRegion(env, ready_fds, 0, n, (const jint *)fds);
    return n;
}

static const JNINativeMethod sockets_methods[] = {
    { "socket", "(Z)I", (void *)sockets_socket },
    { "bind", "(IZ[BII)V", (void *)sockets_bind },
    { "listen", "(II)V", (void *)sockets_listen },
    { "accept", "(I[B)I", (void *)sockets_accept },
    { "connect", "(IZ[BII)I", (void *)sockets_connect },
    { "finishConnect", "(I)I", (void *)sockets_finish_connect },
    { "localAddress", "(I[B)V", (void *)sockets_local_address },
    { "readAt", "(IJI)I", (void *)sockets_read_at },
    { "readArray", "(I[BII)I", (void *)sockets_read_array },
    { "writeAt", "(IJI)I", (void *)sockets_write_at },
    { "writeArray", "(I[BII)I", (void *)sockets_write_array },
    { "readv", "(IJI)J", (void *)sockets_readv },
    { "writev", "(IJI)J", (void *)sockets_writev },
    { "shutdown", "(II)V", (void *)sockets_shutdown },
    { "close", "(I)V", (void *)sockets_close },
    { "poll", "(III)I", (void *)sockets_poll },
    { "available", "(I)I", (void *)sockets_available },
    { "sendUrgentData", "(II)I", (void *)sockets_send_urgent_data },
    { "setIntOption", "(IIII)V", (void *)sockets_set_int_option },
    { "getIntOption", "(III)I", (void *)sockets_get_int_option },
    { "setLinger", "(II)V", (void *)sockets_set_linger },
    { "getLinger", "(I)I", (void *)sockets_get_linger },
    { "pollerCreate", "()I", (void *)sockets_poller_create },
    { "pollerArm", "(III)V", (void *)sockets_poller_arm },
    { "pollerWait", "(I[II)I", (void *)sockets_poller_wait },
};

jint ns_lean_sockets_register(JNIEnv *env, const char *package)
{
    return NS_REGISTER(env, package, "lean/Sockets", sockets_methods);
}
