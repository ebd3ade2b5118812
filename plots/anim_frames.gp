# Frames of `fasim animate`: one PNG per transfer and an animated GIF of all of them.
# Input (written by fasim under dir): frames.dat (tiles: x y dx dy rgb, one block per frame),
# labels.dat (caption per frame), bytes.dat (cumulative bytes per tensor per frame).
# Variables: dir, nframes, ymax, tr, tc, delay, ttl.  Each frame is drawn by anim_draw.gp.
draw = system(sprintf("dirname '%s'", ARG0)) . '/anim_draw.gp'
set terminal pngcairo size 1200,720 font ",10"
do for [f=0:nframes-1] {
    set output sprintf("%s/frame_%04d.png", dir, f + 1)
    load draw
}
set terminal gif animate delay delay size 1200,720 font ",10"
set output sprintf("%s/anim.gif", dir)
do for [f=0:nframes-1] {
    load draw
}
set output
