; Pagewise installer for Windows (NSIS 3): per-user, no administrator rights.
;
;   makensis /DVERSION=0.1.0 /DBUNDLE=build\windows-cpu\dist\pagewise /DOUTFILE=dist\pagewise-0.1.0-windows-x86_64-cpu-setup.exe installers\pagewise.nsi
;
; installers/build_windows.ps1 runs this after PyInstaller. It installs the one-folder bundle to
; %LOCALAPPDATA%\Programs\Pagewise (never %LOCALAPPDATA%\Pagewise: that is the user's library),
; adds a Start-menu entry, offers Pagewise in Explorer's "Open with" for PDF files (it does not
; take over the default PDF app) and registers an uninstaller in "Installed apps". Installing a
; newer version replaces the program files only; the uninstaller leaves the library alone.
; /DSIGN_COMMAND="..." signs the uninstaller as it is written (%1 is the file), like the rest.

Unicode true
!include "MUI2.nsh"

!ifndef VERSION
  !error "pass /DVERSION=x.y.z (the version in pyproject.toml)"
!endif
!ifndef BUNDLE
  !error "pass /DBUNDLE=path\to\dist\pagewise (PyInstaller's one-folder output)"
!endif
!ifndef OUTFILE
  !define OUTFILE "pagewise-${VERSION}-windows-x86_64-setup.exe"
!endif
!ifdef SIGN_COMMAND
  !uninstfinalize '${SIGN_COMMAND}' = 0
!endif
; The longest install folder whose files all stay within Windows' 260-character path limit
; (MAX_PATH: 259 characters and the terminating NUL): 259 - 1 - the longest path below the bundle.
; A DLL past it fails to load ([WinError 234]: the embedding model, in the Wine smoke test). The
; build scripts pass it from the bundle they package (installers/bundle_paths.py).
!ifndef MAX_INSTDIR
  !error "pass /DMAX_INSTDIR=N (installers/bundle_paths.py BUNDLE --max-install-dir)"
!endif

!define APP "Pagewise"
!define EXE "pagewise.exe"
!define PROGID "Pagewise.PDF"
!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APP}"

Name "${APP} ${VERSION}"
OutFile "${OUTFILE}"
RequestExecutionLevel user
InstallDir "$LOCALAPPDATA\Programs\${APP}"
InstallDirRegKey HKCU "${UNINSTALL_KEY}" "InstallLocation"
SetCompressor /SOLID lzma
; 128 MiB (default 8): pagewise-cli.exe repeats pagewise.exe's ~80 MiB archive (see File below),
; found again only within the window. Installing needs that much memory to unpack, once.
SetCompressorDictSize 128
ManifestDPIAware true
VIProductVersion "${VERSION}.0"
VIAddVersionKey "ProductName" "${APP}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "${APP} installer"
VIAddVersionKey "LegalCopyright" "Apache-2.0"

!define MUI_ICON "pagewise.ico"
!define MUI_UNICON "pagewise.ico"
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\${EXE}"
!define MUI_DIRECTORYPAGE_TEXT_TOP "Setup will install ${APP} in the following folder. Its path can be at most ${MAX_INSTDIR} characters long: a longer one would take some of ${APP}'s files past Windows' 260-character path limit."
!define MUI_FINISHPAGE_RUN_TEXT "Start ${APP}"
!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Function .onInit
  SetShellVarContext current
  Call RefuseDeepInstallFolder
FunctionEnd

; The directory page's Next button stays disabled while the folder is too long.
Function .onVerifyInstDir
  StrLen $0 $INSTDIR
  IntCmp $0 ${MAX_INSTDIR} fits fits
    Abort
  fits:
FunctionEnd

; A folder given with /D= (silent installs too) that is too long: say why and the longest accepted,
; on the console when the installer's output goes to one (silent) or in a message box, exit code 2.
Function RefuseDeepInstallFolder
  StrLen $0 $INSTDIR
  IntCmp $0 ${MAX_INSTDIR} fits fits
  StrCpy $1 "Pagewise was not installed: the install folder $INSTDIR is $0 characters long, and some of Pagewise's files would then pass Windows' 260-character path limit and fail to load. Choose a folder of at most ${MAX_INSTDIR} characters (the default, $LOCALAPPDATA\Programs\${APP}, is fine).$\r$\n"
  IfSilent 0 show
    System::Call 'kernel32::GetStdHandle(i -11) p .r2'
    StrLen $3 $1
    System::Call 'kernel32::WriteFile(p r2, m r1, i r3, *i .r4, p 0)'
  show:
  MessageBox MB_OK|MB_ICONSTOP "$1" /SD IDOK
  SetErrorLevel 2
  Quit
  fits:
FunctionEnd

Function un.onInit
  SetShellVarContext current
FunctionEnd

Section "Pagewise" SecMain
  SectionIn RO
  Call RefuseDeepInstallFolder
  ; An older version's program files go first (a PyInstaller folder differs between versions);
  ; only a folder that holds our executable is ever deleted.
  IfFileExists "$INSTDIR\${EXE}" 0 +4
    RMDir /r "$INSTDIR\_internal"
    Delete "$INSTDIR\*.exe"
    Delete "$INSTDIR\THIRD_PARTY_LICENSES.txt"
  SetOutPath "$INSTDIR"
  ; The two executables one after the other: each carries the same ~80 MiB of compiled Python
  ; (PyInstaller's archive), which LZMA's 128 MiB window then stores once.
  File "${BUNDLE}\pagewise.exe"
  File "${BUNDLE}\pagewise-cli.exe"
  File "${BUNDLE}\THIRD_PARTY_LICENSES.txt"
  File /r "${BUNDLE}\_internal"
  WriteUninstaller "$INSTDIR\uninstall.exe"

  CreateShortcut "$SMPROGRAMS\${APP}.lnk" "$INSTDIR\${EXE}" "" "$INSTDIR\${EXE}" 0

  ; "Open with" for PDF files, per user (HKCU\Software\Classes); the default PDF app is kept.
  WriteRegStr HKCU "Software\Classes\${PROGID}" "" "Document (${APP})"
  WriteRegStr HKCU "Software\Classes\${PROGID}\DefaultIcon" "" "$INSTDIR\${EXE},0"
  WriteRegStr HKCU "Software\Classes\${PROGID}\shell\open\command" "" '"$INSTDIR\${EXE}" "%1"'
  WriteRegStr HKCU "Software\Classes\.pdf\OpenWithProgids" "${PROGID}" ""
  WriteRegStr HKCU "Software\Classes\.docx\OpenWithProgids" "${PROGID}" ""
  WriteRegStr HKCU "Software\Classes\Applications\${EXE}" "FriendlyAppName" "${APP}"
  WriteRegStr HKCU "Software\Classes\Applications\${EXE}\SupportedTypes" ".pdf" ""
  WriteRegStr HKCU "Software\Classes\Applications\${EXE}\SupportedTypes" ".docx" ""
  WriteRegStr HKCU "Software\Classes\Applications\${EXE}\shell\open\command" "" '"$INSTDIR\${EXE}" "%1"'

  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayName" "${APP}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "Publisher" "${APP}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayIcon" "$INSTDIR\${EXE},0"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINSTALL_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoRepair" 1
  ; SHChangeNotify(SHCNE_ASSOCCHANGED): Explorer picks up the new "Open with" entry.
  System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'
SectionEnd

Section "Uninstall"
  ; The library (%LOCALAPPDATA%\Pagewise, or the folder chosen in the settings) is the user's:
  ; it stays. Only our own files and registry entries go.
  Delete "$SMPROGRAMS\${APP}.lnk"
  DeleteRegKey HKCU "Software\Classes\${PROGID}"
  DeleteRegValue HKCU "Software\Classes\.pdf\OpenWithProgids" "${PROGID}"
  DeleteRegValue HKCU "Software\Classes\.docx\OpenWithProgids" "${PROGID}"
  DeleteRegKey HKCU "Software\Classes\Applications\${EXE}"
  DeleteRegKey HKCU "${UNINSTALL_KEY}"
  IfFileExists "$INSTDIR\${EXE}" 0 +2
    RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\pagewise.exe"
  Delete "$INSTDIR\pagewise-cli.exe"
  Delete "$INSTDIR\THIRD_PARTY_LICENSES.txt"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'
SectionEnd
