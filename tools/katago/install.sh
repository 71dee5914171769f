#!/usr/bin/env bash
# Reproduce a CPU-only KataGo (OpenCL backend on pocl) setup on Debian 12 x86_64, no GPU.
# Sources: PyPI wheels of katrain (binary from 1.20.0 = KataGo v1.18.1; 9x9-friendly
# non-transformer net g170e-b15c192 from 1.10.1) + Debian's pocl-opencl-icd.
#
# usage: install.sh [DEST]            (default DEST=$PWD/katago)
#   MODEL=b15 (default) | b10   b10 = b10c384h6nbttflrs transformer net from the 1.20.0 wheel
#                               (skips the second wheel download; ~1.5-2x slower per query)
#   TUNE=0 (default)  write the precomputed OpenCL tuning file (no tuning at all)
#   TUNE=1            run `katago tuner` for 9x9 instead (about 5 min on 2 busy cores)
set -euo pipefail
DEST=$(realpath -m "${1:-$PWD/katago}")
MODEL=${MODEL:-b15}
TUNE=${TUNE:-0}
mkdir -p "$DEST/wheels" "$DEST/KataGoData/opencltuning" "$DEST/logs"
cd "$DEST"

# 1. OpenCL runtime on the CPU (pocl). ocl-icd-libopencl1 comes as a dependency.
if ! dpkg -s pocl-opencl-icd >/dev/null 2>&1; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y pocl-opencl-icd ocl-icd-libopencl1
fi

# 2. KataGo v1.18.1 (OpenCL) AppImage from the katrain 1.20.0 wheel; extract it (no FUSE needed).
fetch() { # version sha256
  local f; f=$(ls wheels/[Kk]a[Tt]rain-"$1"-py3-none-any.whl 2>/dev/null || true)
  if [ -z "$f" ]; then pip download --no-deps --no-cache-dir "katrain==$1" -d wheels >/dev/null; fi
  f=$(ls wheels/[Kk]a[Tt]rain-"$1"-py3-none-any.whl)
  echo "$2  $f" | sha256sum -c - >/dev/null
  echo "$f"
}
W20=$(fetch 1.20.0 489caa966fa395a6ad459239641a927e4a2057963370e450109fe77120de662f)
unzip -o -q -j "$W20" katrain/KataGo/katago -d appimage
(cd appimage && rm -rf squashfs-root && ./katago --appimage-extract >/dev/null)
echo "a81e10d68061c1e73f715b387b587ad3799f688363c8fb6545b73ed99a12ccb1  appimage/squashfs-root/usr/bin/katago" | sha256sum -c - >/dev/null
cat > katago <<EOF
#!/bin/sh
export LD_LIBRARY_PATH="$DEST/appimage/squashfs-root/usr/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec "$DEST/appimage/squashfs-root/usr/bin/katago" "\$@"
EOF
chmod +x katago

# 3. Network.
if [ "$MODEL" = b10 ]; then
  unzip -o -q -j "$W20" katrain/models/b10c384h6nbttflrs.bin.gz -d .
  mv -f b10c384h6nbttflrs.bin.gz model.bin.gz
  echo "0ba27eced5180b3e3d0b898b280c541112989765e789d1eb6cd0d31b2b2c1229  model.bin.gz" | sha256sum -c - >/dev/null
else
  W10=$(fetch 1.10.1 8eddea97a853564338543ba7d44826284347542b070c5dbee61945e8be3258d0)
  unzip -o -q -j "$W10" katrain/models/g170e-b15c192-s1672170752-d466197061.bin.gz -d .
  mv -f g170e-b15c192-s1672170752-d466197061.bin.gz model.bin.gz
  echo "1579a64e6190c3a8d73eeb96feb4dee1879f9e5e114279b15d6c56dbab3b0f78  model.bin.gz" | sha256sum -c - >/dev/null
fi
rm -rf wheels appimage/katago   # ~170 MB of wheels no longer needed

# 4. Configs (9x9-only NN buffer: faster; boards other than 9x9 are rejected).
TUNEFILE="$DEST/KataGoData/opencltuning/tune_cpu_pocl_9x9.txt"
common() {
  cat <<EOF
homeDataDir = $DEST/KataGoData
openclTunerFile = $TUNEFILE
openclUseFP16 = false
openclDeviceToUse = 0
maxBoardXSizeForNNBuffer = 9
maxBoardYSizeForNNBuffer = 9
requireMaxBoardSize = true
maxVisits = 16
numSearchThreads = 2
nnMaxBatchSize = 2
numNNServerThreadsPerModel = 1
nnCacheSizePowerOfTwo = 16
nnMutexPoolSizePowerOfTwo = 10
EOF
}
{ common; cat <<EOF
logFile = $DEST/logs/gtp.log
logSearchInfo = false
logAllGTPCommunication = true
rules = chinese
defaultBoardSize = 9
ponderingEnabled = false
EOF
} > gtp.cfg
{ common; cat <<EOF
logDir = $DEST/logs/analysis
numAnalysisThreads = 1
reportAnalysisWinratesAs = BLACK
EOF
} > analysis.cfg

# 5. OpenCL tuning: precomputed (generic pocl CPU values, FP32) or tuned here.
if [ "$TUNE" = 1 ]; then
  rm -f "$TUNEFILE"
  nice -n 19 ./katago tuner -config gtp.cfg -model model.bin.gz -xsize 9 -ysize 9 -batchsize 2 \
    -testFP16 false -output "$TUNEFILE"
else
  cat > "$TUNEFILE" <<'EOF'
VERSION=13
#canUseFP16Storage
0
#canUseFP16Compute
0
#canUseFP16TensorCores
0
#canUseFP16TensorCoresFor1x1
0
#shouldUseFP16Storage
0
#shouldUseFP16Compute
0
#shouldUseFP16TensorCores
0
#shouldUseFP16TensorCoresFor1x1
0
#xGemmDirect
WGD=32 MDIMCD=8 NDIMCD=16 MDIMAD=16 NDIMBD=16 KWID=2 VWMD=2 VWND=2 PADA=1 PADB=1
#xGemm
MWG=32 NWG=32 KWG=32 MDIMC=8 NDIMC=8 MDIMA=8 NDIMB=8 KWI=2 VWM=4 VWN=4 STRM=0 STRN=0 SA=1 SB=1
#xGemm16
MWG=32 NWG=32 KWG=32 MDIMC=8 NDIMC=8 MDIMA=8 NDIMB=8 KWI=2 VWM=4 VWN=4 STRM=0 STRN=0 SA=1 SB=1
#hGemmWmma
MWG=16 NWG=16 KWG=16 MWAVE=16 NWAVE=16 MWARP=16 NWARP=16 VWM=2 VWN=2 SA=0 SB=0
#hGemmWmmaNCHW
MWG=16 NWG=16 KWG=16 MWAVE=16 NWAVE=16 MWARP=16 NWARP=16 VWM=1 VWN=2 SB=0 PAD_ELTS_PER_THREAD=1 PAD_ROWS_PER_THREAD=1
#conv3x3
INTILE_XSIZE=6 INTILE_YSIZE=6 OUTTILE_XSIZE=4 OUTTILE_YSIZE=4 transLocalSize0=32 transLocalSize1=4 untransLocalSize0=1 untransLocalSize1=2 untransLocalSize2=1
#conv5x5
INTILE_XSIZE=6 INTILE_YSIZE=6 OUTTILE_XSIZE=2 OUTTILE_YSIZE=2 transLocalSize0=32 transLocalSize1=4 untransLocalSize0=1 untransLocalSize1=2 untransLocalSize2=1
#gPool
XYSTRIDE=4 CHANNELSTRIDE=2 BATCHSTRIDE=1
#transformer
ATTN_BLOCK_Q=32 ATTN_BLOCK_KV=32 Q_PER_THREAD=1 USE_TILED_ATTN=1
#transformerRMSNorm
WG_C_SIZE=64 WG_XY_SIZE=1 C_PER_THREAD=4
#pointWise
ELTS_PER_THREAD=1 LOCAL_SIZE=128
#addChannelBiasesNCHW
XY_ELTS_PER_THREAD=2 NC_ELTS_PER_THREAD=4
#spatialRMSNorm
TILE_SIZE=256 APPLY_ELTS_PER_THREAD=8
EOF
fi

# 6. Smoke test (first run also fills pocl's kernel cache in ~/.cache/pocl, ~15 s).
echo "--- GTP smoke test"
printf 'name\nversion\nboardsize 9\nkomi 7\nplay B E5\ngenmove W\nquit\n' |
  nice -n 19 ./katago gtp -model model.bin.gz -config gtp.cfg 2>/dev/null
echo "--- analysis smoke test"
echo '{"id":"a","moves":[["B","E5"]],"rules":"chinese","komi":7,"boardXSize":9,"boardYSize":9,"maxVisits":16,"includeOwnership":true}' |
  nice -n 19 ./katago analysis -model model.bin.gz -config analysis.cfg 2>/dev/null |
  python3 -c 'import json,sys; r=json.loads(sys.stdin.readline()); print("scoreLead", r["rootInfo"]["scoreLead"], "visits", r["rootInfo"]["visits"], "ownership", len(r["ownership"]))'
echo "OK: $DEST/katago {gtp|analysis} -model $DEST/model.bin.gz -config $DEST/{gtp,analysis}.cfg"
