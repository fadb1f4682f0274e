// Only the reentrant (_r) API: every call takes an explicit context, so each
// owner of a context can live on its own thread without global state.
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>
