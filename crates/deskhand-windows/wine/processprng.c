/*
 * A stand-in for bcryptprimitives.dll, which Wine 8 lacks and Rust's std (1.78 and later)
 * imports ProcessPrng from, so that no Rust program starts under Wine 8 without it
 * (rust-lang/rust#121337). It serves the one export over RtlGenRandom (SystemFunction036 of
 * advapi32), which Wine has. scripts/wine-test builds it into the test prefix; Windows 10 and
 * later, and Wine 10, ship the real DLL.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
