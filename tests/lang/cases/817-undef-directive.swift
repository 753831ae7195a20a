// Preprocessor directives other than #include, #define, #ifdef, #ifndef, #else and #endif are not supported.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 6:1
// STDERR: unsupported feature: preprocessor directive #undef
#define LIMIT 10
#undef LIMIT
trace(1);
