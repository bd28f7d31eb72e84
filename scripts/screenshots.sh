#!/usr/bin/env bash
# Remakes the README's and the book's screenshots with the app's own export, under Xvfb.
# Usage: scripts/screenshots.sh [path/to/collidoscope]   (default: a debug build)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/debug/collidoscope}
[ -x "$bin" ] || cargo build
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
s=$PWD/screenshots
run() { xvfb-run -a -s "-screen 0 1600x1000x24" "$bin" --script "$1"; }

run "open:stanford-bunny; backend:cpu; res:128; compute; orbit:-35,0; pick; wait:3; screenshot:$s/bunny-cells.png;
     filter:inside; clip:z; mesh:hidden; orbit:10,15; points:4; wait:3; screenshot:$s/bunny-inside.png;
     filter:all; clip:off; mesh:hidden; verify:sign-modes; orbit:-10,-70; points:5; wait:3; screenshot:$s/bunny-sign-modes.png; quit"
run "open:spot; backend:gpu; res:80; compute; verify:cpu-vs-gpu; clip:off; mesh:wireframe; points:4; slice:x; wait:3; screenshot:$s/spot-cpu-vs-gpu.png; quit"
run "tritri:tori; tritri-offset:0.42,0,0; tritri-backend:gpu; profiler:off; orbit:25,20; wait:5; screenshot:$s/tritri-tori.png; quit"
run "interfere:random-mixed; interfere-count:60; interfere-seed:3; interfere-res:256; interfere-axis:z; interfere-verify; profiler:off; orbit:25,20; wait:5; screenshot:$s/interfere-scene.png;
     interfere-image:penetrated; wait:3; screenshot:$s/interfere-ids.png; quit"
run "collide:box-stack; collide-samples:on; collide-step:60; collide-compare; wait:5; screenshot:$s/collide-stack.png; quit"
run "collide:line; mesh:wireframe; collide-compare; wait:5; screenshot:$s/collide-line.png; quit"
run "simulate:16; simulate-backend:gpu-detect; simulate-step:90; simulate-pick:3; orbit:25,20; wait:5; screenshot:$s/pipeline-pile.png; quit"
run "simulate:16; simulate-add:assets/spot.obj; simulate-add:assets/cow.obj; simulate-step:120; orbit:25,20; wait:5; screenshot:$s/pipeline-dropped.png; quit"
run "simulate:12; simulate-backend:gpu-detect; simulate-pick:3; simulate-exact:on; simulate-step:90; camera:scripts/simulate-exact-camera.json; mesh:wireframe; profiler:off; wait:5; screenshot:$s/pipeline-exact.png; quit"
run "simulate:16; simulate-backend:gpu-detect; simulate-broad:image; simulate-step:90; simulate-pick:3; orbit:25,20; wait:5; screenshot:$s/pipeline-image-broad.png; quit"
run "open:stanford-bunny; backend:gpu; res:64; compute; adaptive; adaptive-depth:8; adaptive-level:5; clip:z; mesh:hidden; points:3; adaptive-pick; wait:3; screenshot:$s/adaptive-bunny.png; quit"
run "open:stanford-bunny; backend:gpu; res:64; compute; adaptive; adaptive-depth:8; adaptive-boxes:off; adaptive-compare:on; clip:z; mesh:hidden; points:3; wait:3; screenshot:$s/adaptive-compare.png; quit"
run "open:stanford-bunny; backend:gpu; res:64; compute; adaptive; adaptive-depth:8; adaptive-boxes:off; adaptive-rss:3; cells:off; mesh:hidden; orbit:-35,0; wait:3; screenshot:$s/adaptive-rss.png; quit"
f=$(mktemp -d)/suzanne.npy
"$bin" sdf assets/suzanne.obj --sign pseudo-normal --res 48 --backend cpu --no-cache --out "$f" > /dev/null 2>&1
run "open:suzanne; compute; open-field:$f; compute; mesh:wireframe; clip:off; verify-threshold:0.01; points:7; check-pick:0; wait:3; screenshot:$s/verify-loaded-field.png; quit"
run "radial; radial-res:128x64; radial-bone:forearm.l; radial-time:1.0; radial-scene:off; radial-cylinders:wire; profiler:off; orbit:35,5; wait:3; screenshot:$s/radial-humanoid.png; quit"
run "radial-open:assets/CesiumMan.glb; radial-res:64x32; radial-time:0.5; radial-settle:40; orbit:150,10; wait:3; screenshot:$s/radial-cesium-man.png; quit"
run "radial; radial-res:64x32; radial-time:1.0; radial-settle:30; wait:2; radial-alternatives; wait:2; screenshot:$s/radial-alternatives.png; quit"
run "open:stanford-bunny; backend:gpu; res:64; compute; clip:off; filter:inside; orbit:-35,0; pick; opacity:0.35; points:3; wait:3; screenshot:$s/bunny-translucent.png;
     cells:off; iso:-0.004; compute; wait:3; screenshot:$s/bunny-iso-surface.png; opacity:1; cells:on; filter:all; clip:z; quit"
# The particle stage's impact maps (CLI), then the particles mode live.
maps=$(mktemp -d)
"$bin" particles assets/hail.json --frames 120 --dt 0.0166 --out "$maps/events.csv" --maps "$maps" --map-res 128 --backend gpu
cp "$maps/collider4_ellipsoid_count.png" "$s/particles-map-dome.png"
cp "$maps/collider5_cone_time.png" "$s/particles-map-cone.png"
run "particles; particles-time:4; particles-collider:4; profiler:off; orbit:20,10; wait:40; screenshot:$s/particles-hail.png; quit"
run "open:stanford-bunny; backend:gpu; res:64; compute; pick; slice:x; colormap:viridis; range:data; wait:3; screenshot:$s/bunny-viridis-slice.png;
     export-slice:$s/figure-slice.png@2x+caption; export-figure:$s/figure-view.png+caption; quit"
