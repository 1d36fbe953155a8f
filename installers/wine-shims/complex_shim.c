/* Test-only: the C99 complex functions Wine 10.0's ucrtbase leaves as stubs, with MSVC's x64 ABI.
   Every other export of ucrtbase.dll is forwarded to ucrtwine.dll (Wine's own, de-marked). */
#include <complex.h>
#include <math.h>
typedef struct { double v[2]; } Dc;     /* MSVC _Dcomplex (and _Lcomplex: long double == double) */
typedef struct { float v[2]; } Fc;      /* MSVC _Fcomplex */
static inline double _Complex toD(Dc z) { return __builtin_complex(z.v[0], z.v[1]); }
static inline Dc fromD(double _Complex z) { Dc r = {{__real__ z, __imag__ z}}; return r; }
static inline float _Complex toF(Fc z) { return __builtin_complex(z.v[0], z.v[1]); }
static inline Fc fromF(float _Complex z) { Fc r = {{__real__ z, __imag__ z}}; return r; }
#define C2C(n) \
    Dc shim_##n(Dc z) { return fromD(n(toD(z))); } \
    Fc shim_##n##f(Fc z) { return fromF(n##f(toF(z))); } \
    Dc shim_##n##l(Dc z) { return fromD(n(toD(z))); }
#define C2R(n) \
    double shim_##n(Dc z) { return n(toD(z)); } \
    float shim_##n##f(Fc z) { return n##f(toF(z)); } \
    double shim_##n##l(Dc z) { return n(toD(z)); }
C2C(cacos) C2C(cacosh) C2C(casin) C2C(casinh) C2C(catan) C2C(catanh)
C2C(ccos) C2C(ccosh) C2C(csin) C2C(csinh) C2C(ctan) C2C(ctanh)
C2C(cexp) C2C(clog) C2C(csqrt) C2C(cproj) C2C(conj)
C2R(cabs) C2R(carg) C2R(cimag)
float shim_crealf(Fc z) { return z.v[0]; }
double shim_creall(Dc z) { return z.v[0]; }
Dc shim_clog10(Dc z) { return fromD(clog(toD(z)) / M_LN10); }
Fc shim_clog10f(Fc z) { return fromF(clogf(toF(z)) / (float)M_LN10); }
Dc shim_clog10l(Dc z) { return shim_clog10(z); }
Dc shim_cpow(Dc x, Dc y) { return fromD(cpow(toD(x), toD(y))); }
Fc shim_cpowf(Fc x, Fc y) { return fromF(cpowf(toF(x), toF(y))); }
Dc shim_cpowl(Dc x, Dc y) { return shim_cpow(x, y); }
double shim_norm(Dc z) { return z.v[0] * z.v[0] + z.v[1] * z.v[1]; }      /* MSVC norm = |z|^2 */
float shim_normf(Fc z) { return z.v[0] * z.v[0] + z.v[1] * z.v[1]; }
double shim_norml(Dc z) { return shim_norm(z); }
Fc shim__FCbuild(float re, float im) { Fc r = {{re, im}}; return r; }
Dc shim__LCbuild(double re, double im) { Dc r = {{re, im}}; return r; }
Dc shim__Cmulcc(Dc x, Dc y) { return fromD(toD(x) * toD(y)); }
Dc shim__Cmulcr(Dc x, double y) { Dc r = {{x.v[0] * y, x.v[1] * y}}; return r; }
Fc shim__FCmulcc(Fc x, Fc y) { return fromF(toF(x) * toF(y)); }
Fc shim__FCmulcr(Fc x, float y) { Fc r = {{x.v[0] * y, x.v[1] * y}}; return r; }
Dc shim__LCmulcc(Dc x, Dc y) { return shim__Cmulcc(x, y); }
Dc shim__LCmulcr(Dc x, double y) { return shim__Cmulcr(x, y); }
