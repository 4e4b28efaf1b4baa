/* The backends of a Linux build. */
#include "epoll_backend.h"
#include "pollset_backend.h"
#include "uring_backend.h"

#include <stddef.h>

const struct ns_backend_ops *const ns_backends[] = { &ns_epoll_ops, &ns_uring_ops, &ns_pollset_ops, NULL };
