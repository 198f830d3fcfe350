/* SPDX-License-Identifier: MIT */
/*
 * Versioned settings and callbacks structs (docs/DESIGN.md, "A stable
 * ABI"). A caller passes the version of each struct its header described;
 * the library knows where each version of a struct ended and converts:
 * an older (shorter) struct is copied over the library's defaults, so the
 * fields it lacks keep their defaults (callbacks: NULL); a version the
 * library does not know is refused (DW_ERR_INVAL). Fields are only ever
 * appended; a struct that embeds another versioned struct by value gets a
 * new version, and a converter of its own here, when the inner one grows.
 */
#ifndef DW_BASE_VERSIONED_H
#define DW_BASE_VERSIONED_H

#include <stddef.h>

#include <ddpwire/common.h>

/* Octets of T up to the end of field f: where a version of T ended. */
#define DW_V_END(T, f) (offsetof(T, f) + sizeof(((T *)0)->f))

/*
 * The versions of a public struct T: name[v - 1] is where version v ended.
 * The assertion fails to compile when a field is appended to T without
 * a new version here (the current version must end where T does).
 */
#define DW_VERSIONS_1(name, T, f1)                                            \
    static const size_t name[] = {DW_V_END(T, f1)};                           \
    _Static_assert(sizeof(T) - DW_V_END(T, f1) < _Alignof(T),                 \
                   #T " grew: add a version (lib/base/versioned.h)")

/* Two versions: the second appended fields after f1, up to f2. */
#define DW_VERSIONS_2(name, T, f1, f2)                                        \
    static const size_t name[] = {DW_V_END(T, f1), DW_V_END(T, f2)};          \
    _Static_assert(sizeof(T) - DW_V_END(T, f2) < _Alignof(T),                 \
                   #T " grew: add a version (lib/base/versioned.h)")

#define DW_NVERSIONS(name) ((int)(sizeof(name) / sizeof((name)[0])))

/*
 * The caller's struct in (of version version) as the library's current
 * one: in itself when version is the current one (no copy); else its
 * octets copied over cur, which holds the defaults. NULL stays NULL. An
 * unknown version sets *err to DW_ERR_INVAL (it is left alone otherwise)
 * and gives NULL.
 */
const void *dw_versioned_in(void *cur, const void *in, int version, const size_t *ends,
                            int nversions, int *err);

/*
 * Writes the current struct cur out as version version into out (only the
 * octets that version has). 0, or DW_ERR_INVAL for NULL or an unknown
 * version (out untouched).
 */
int dw_versioned_out(void *out, const void *cur, int version, const size_t *ends, int nversions);

/* The same, with the versions table by name. */
#define DW_VERSIONED_IN(p, cur, version, ends, err)                           \
    ((p) = dw_versioned_in(&(cur), (p), (version), (ends), DW_NVERSIONS(ends), &(err)))
#define DW_VERSIONED_OUT(out, cur, version, ends)                             \
    dw_versioned_out((out), &(cur), (version), (ends), DW_NVERSIONS(ends))

#endif
