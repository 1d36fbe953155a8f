/* rawcmd.exe "COMMAND LINE": run a Windows command line exactly as given, wait, exit with its
   status. Test-only: wine quotes every argument that holds a space, and an NSIS installer wants
   /D=path last and unquoted, spaces and all ("/D=C:\a b" in quotes is not its /D option). */
#include <windows.h>
#include <shellapi.h>
#include <wchar.h>
int main(void)
{
    int argc = 0;
    LPWSTR *argv = CommandLineToArgvW(GetCommandLineW(), &argc);
    STARTUPINFOW si = { sizeof(si) };
    /* the child writes to our standard handles (a pipe under the smoke test: its messages are read) */
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
    si.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
    si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
    PROCESS_INFORMATION pi;
    DWORD status = 1;
    if (!argv || argc != 2) return 2;
    LPWSTR line = _wcsdup(argv[1]);              /* CreateProcessW may write into it */
    if (!CreateProcessW(NULL, line, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) return 3;
    WaitForSingleObject(pi.hProcess, INFINITE);
    GetExitCodeProcess(pi.hProcess, &status);
    return (int)status;
}
