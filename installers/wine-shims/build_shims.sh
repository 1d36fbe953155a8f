#!/bin/bash
# Build the test-only Wine 10 shims and install them into a prefix's system32.
#   build_shims.sh WINE_X86_64_WINDOWS_DIR PYICU_WHEEL SYSTEM32 [HOST_PYTHON]
set -euo pipefail
WD=$1; WHEEL=$2; S=$3; PY=${4:-python3}
cd "$(dirname "$0")"
CC=x86_64-w64-mingw32-gcc-posix
$CC -O2 -c -o complex_shim.o complex_shim.c
$PY gen_forward_def.py $WD/ucrtbase.dll ucrtbase ucrtwine complex_shim.o ucrtbase.def
$CC -O2 -c -o amx_perm.o amx_perm.c
$CC -O2 -shared -static-libgcc -Wl,--no-insert-timestamp -o ucrtbase.dll complex_shim.o amx_perm.o ucrtbase.def
$CC -O2 -c -o mscms_shim.o mscms_shim.c
$PY gen_forward_def.py $WD/mscms.dll mscms mscmswine mscms_shim.o mscms.def
$CC -O2 -shared -Wl,--no-insert-timestamp -o mscms.dll mscms_shim.o mscms.def
unzip -jo -q "$WHEEL" icu/icuuc77.dll icu/icudt77.dll -d .
$PY gen_icu_def.py icuuc77.dll 77 icuuc.def
echo 'int icuuc_forwarder_only;' > empty.c
$CC -O2 -shared -Wl,--no-insert-timestamp -o icuuc.dll empty.c icuuc.def
for d in ucrtbase:ucrtwine mscms:mscmswine; do
  cp $WD/${d%%:*}.dll ${d##*:}.dll
  printf '\0%.0s' $(seq 16) | dd of=${d##*:}.dll bs=1 seek=64 conv=notrunc status=none
done
[ -z "$S" ] || cp ucrtbase.dll ucrtwine.dll mscms.dll mscmswine.dll icuuc.dll icuuc77.dll icudt77.dll "$S/"
x86_64-w64-mingw32-objdump -p ucrtbase.dll | grep -c "Forwarder" || true
sha256sum ucrtbase.dll mscms.dll icuuc.dll icuuc77.dll icudt77.dll
# not a shim: the smoke test's launcher for an installer's unquoted /D=path
$CC -O2 -o rawcmd.exe rawcmd.c -lshell32
