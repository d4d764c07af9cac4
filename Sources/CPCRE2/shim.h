#ifndef CPCRE2_SHIM_H
#define CPCRE2_SHIM_H
/* pcre2.h refuses to compile without a code unit width; ToolCallKit uses the 8-bit library. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
/* Cast-expression macros are not imported by Swift; expose them as functions. */
static inline PCRE2_SIZE cpcre2_unset(void) { return PCRE2_UNSET; }
#endif
