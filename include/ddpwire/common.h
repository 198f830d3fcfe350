/* SPDX-License-Identifier: MIT */
/*
 * What every protocol module of ddpwire shares: the export macro, the
 * library version, the error codes and their names. Every other public
 * header includes it; <ddpwire/ddpwire.h> includes them all.
 */
#ifndef DDPWIRE_COMMON_H
#define DDPWIRE_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h> /* ssize_t */

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Marks what the shared library exports. The library is built with hidden
 * visibility, so only what the public headers declare with DW_EXTERN is
 * visible to its users.
 */
#if defined(DW_BUILDING_LIBRARY) && defined(__GNUC__)
#define DW_EXTERN __attribute__((visibility("default")))
#else
#define DW_EXTERN
#endif

/*
 * Versioned settings and callbacks (the ABI of 1.0 on). Each settings or
 * callbacks struct has a layout version, DW_<OBJECT>_SETTINGS_VERSION or
 * DW_<OBJECT>_CALLBACKS_VERSION, that the header defines. The library's
 * functions that take such a struct are dw_*_versioned() and take the
 * version beside it; the familiar names are macros that pass the version
 * of the header a program was compiled with:
 *
 *   dw_mpa_rx_settings_default(&s)
 *     -> dw_mpa_rx_settings_default_versioned(DW_MPA_RX_SETTINGS_VERSION, &s)
 *   dw_mpa_rx_new(&rx, &s, &cb, user_data)
 *     -> dw_mpa_rx_new_versioned(&rx, DW_MPA_RX_SETTINGS_VERSION, &s,
 *                                DW_MPA_RX_CALLBACKS_VERSION, &cb, user_data)
 *
 * Fields are only ever appended, each addition under a new version. A
 * program built against an older header keeps working with a newer
 * library: its shorter structs are read as far as they go and the fields
 * they lack take their defaults (callbacks: NULL); *_settings_default()
 * writes only the fields the caller's version has. A version the library
 * does not know (0, or newer than the library) is refused: DW_ERR_INVAL.
 * *_settings_default_versioned() returns 0 or DW_ERR_INVAL.
 */

/* DW_VERSION_MAJOR, _MINOR, _PATCH and _STRING, from CMake's
 * project(VERSION) (generated into the build tree, installed beside this). */
#include <ddpwire/version.h>

/** Returns the linked library's version string, e.g. "1.0.0". */
DW_EXTERN const char *dw_version(void);

/*
 * Library error codes. Every function that can fail returns 0 (or a
 * non-negative count) on success and one of these negative values on
 * failure. DW_ERR_NEED_MORE ("need more bytes") is kept apart from
 * DW_ERR_MALFORMED ("these bytes can never be valid").
 *
 * Protocol error codes that a peer's stream provokes (MPA's 1/2/3, ...)
 * are not library errors: they have their own enums in the protocol
 * headers and are reported through callbacks.
 *
 * X(name, value, description)
 */
#define DW_ERRORS(X)                                                          \
    X(OK, 0, "success")                                                       \
    X(NEED_MORE, -1, "need more bytes")                                       \
    X(MALFORMED, -2, "malformed input")                                       \
    X(INVAL, -3, "invalid argument")                                          \
    X(NOMEM, -4, "out of memory")                                             \
    X(NOSPACE, -5, "output buffer too small")                                 \
    X(EMPTY, -6, "record of zero octets")                                     \
    X(TOO_LONG, -7, "record longer than the protocol allows")                 \
    X(PROTO, -8, "protocol error reported; stream stopped")                   \
    X(UNSUPPORTED, -9, "not supported on this machine or build")              \
    X(STATE, -10, "operation not allowed in this state")                      \
    X(IO, -11, "system call failed (see errno)")                              \
    X(TIMEOUT, -12, "timed out")                                              \
    X(REJECTED, -13, "the peer rejected the MPA connection")                  \
    X(ENABLEMENT, -14, "the peer does not speak MPA in this start-up mode")   \
    X(CLOSED, -15, "connection closed")                                      \
    X(AGAIN, -16, "would block: nothing taken or read; wait and call again")

/** The last (most negative) DW_ERR_* value. */
#define DW_ERR_LAST DW_ERR_AGAIN

typedef enum dw_err {
#define DW_ERR_ENUM_(name, value, text) DW_ERR_##name = (value),
    DW_ERRORS(DW_ERR_ENUM_)
#undef DW_ERR_ENUM_
} dw_err;

/**
 * Why the transport ended a stream, given to every receiver's close call
 * (dw_mpa_rx_close(), dw_mpa_seg_close(), dw_ift_rx_close(),
 * dw_fr_rx_close()): MPA 9 error code 1 says which.
 */
typedef enum dw_close_reason {
    DW_CLOSE_FIN = 0, /* orderly close by the peer */
    DW_CLOSE_RST,     /* reset */
    DW_CLOSE_TIMEOUT, /* retransmission timeout, keepalive */
    DW_CLOSE_LOST     /* anything else that lost the connection */
} dw_close_reason;

/** Human-readable description of a DW_ERR_* value ("need more bytes"). */
DW_EXTERN const char *dw_strerror(int err);

/** Symbolic name of a DW_ERR_* value ("DW_ERR_NEED_MORE"). */
DW_EXTERN const char *dw_err_name(int err);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_COMMON_H */
