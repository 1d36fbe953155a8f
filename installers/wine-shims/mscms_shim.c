/* Test-only: WcsCreateIccProfile, a stub in Wine 10.0's mscms (Qt's qwindows.dll imports it).
   Wine's profiles are ICC already: read the bytes and open them again from memory. */
#include <windows.h>
#include <icm.h>
typedef BOOL (WINAPI *get_fn)(HPROFILE, PBYTE, PDWORD);
typedef HPROFILE (WINAPI *open_fn)(PPROFILE, DWORD, DWORD, DWORD);
HPROFILE WINAPI shim_WcsCreateIccProfile(HPROFILE src, DWORD options)
{
    HMODULE wine = GetModuleHandleW(L"mscmswine.dll");
    if (!wine) wine = LoadLibraryW(L"mscmswine.dll");
    get_fn get = wine ? (get_fn)GetProcAddress(wine, "GetColorProfileFromHandle") : NULL;
    open_fn open = wine ? (open_fn)GetProcAddress(wine, "OpenColorProfileW") : NULL;
    DWORD size = 0; PROFILE profile; BYTE *data; (void)options;
    if (!get || !open) { SetLastError(ERROR_NOT_SUPPORTED); return NULL; }
    get(src, NULL, &size);
    if (!size) { SetLastError(ERROR_INVALID_PARAMETER); return NULL; }
    data = HeapAlloc(GetProcessHeap(), 0, size);          /* kept: the profile may point into it */
    if (!data || !get(src, data, &size)) { SetLastError(ERROR_INVALID_PARAMETER); return NULL; }
    profile.dwType = PROFILE_MEMBUFFER; profile.pProfileData = data; profile.cbDataSize = size;
    return open(&profile, PROFILE_READ, FILE_SHARE_READ, OPEN_EXISTING);
}
