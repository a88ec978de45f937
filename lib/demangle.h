/*
 * demangle.h — C++ (Itanium) and Rust (legacy and v0) names made readable,
 * through libiberty's demangler, as addr2line -C and perf print them.
 */
#ifndef ZT_DEMANGLE_H
#define ZT_DEMANGLE_H

/*
 * The demangled form of name, newly allocated (the caller frees it), or NULL
 * when name is not mangled or does not demangle. A suffix such as "@plt" is
 * kept: "_Znwm@plt" gives "operator new(unsigned long)@plt".
 */
char *zt_demangle(const char *name);

#endif
