# Frames of `fasim animate`: one PNG per transfer and an animated GIF of all of them.
# Input (written by fasim): fdat = frames.dat (tiles: x y dx dy rgb, one block per frame),
# ldat = labels.dat (caption per frame), bdat = bytes.dat (cumulative bytes per tensor per frame).
# Output: dir/frame_NNNN.png.sfx and gif (fasim's temporaries, renamed into place when all are drawn).
# Variables: dir, sfx, gif, fdat, ldat, bdat, nframes, ymax, tr, tc, delay, ttl.  Each frame is
# drawn by anim_draw.gp.
draw = system(sprintf("dirname '%s'", ARG0)) . '/anim_draw.gp'
set terminal pngcairo size 1200,720 font ",10"
do for [f=0:nframes-1] {
    set output sprintf("%s/frame_%04d.png%s", dir, f + 1, sfx)
    load draw
}
set terminal gif animate delay delay size 1200,720 font ",10"
set output gif
do for [f=0:nframes-1] {
    load draw
}
set output
