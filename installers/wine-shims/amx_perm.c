/* Test-only, Wine on Linux: ask the Linux kernel for AMX tile state for this process
   (arch_prctl ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA), as Windows grants it to every process.
   Without it, code that sees AMX in CPUID/XCR0 (onnxruntime's MLAS int8 kernels) dies on its
   first tileloadd with an illegal instruction. The syscall instruction from PE code goes straight
   to the Linux kernel under Wine 10; on a CPU without AMX the kernel answers an error, ignored. */
#include <windows.h>
static long long linux_syscall2(long long nr, long long a, long long b)
{
    long long ret;
    __asm__ volatile ("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b) : "rcx", "r11", "memory");
    return ret;
}
BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved)
{
    (void)instance; (void)reserved;
    if (reason == DLL_PROCESS_ATTACH)
        linux_syscall2(158 /* SYS_arch_prctl */, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XTILEDATA */);
    return TRUE;
}
