// #ifdef / #ifndef / #else / #endif keep the lines whose condition holds (§12).
#define DEBUG 1
#ifdef DEBUG
trace("debug on");
#else
trace("debug off");
#endif
#ifndef VERBOSE
trace("quiet");
#endif
#ifdef VERBOSE
this line is not a program $ at all
#endif
