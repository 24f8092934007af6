# timeout: 180
# Tripod records video on the virtual board: vimc gives one RGB stream through libcamera (no
# separate video stream), which recording converts with libswscale, encodes with libx264 and writes
# as a fragmented MP4 with its sidecar. ffprobe, decoding every frame, must count as many frames
# as the sidecar says were written, in H.264. SIGTERM afterwards stops tripod cleanly.
. /vboard/lib.sh
need_tripod
command -v ffprobe >/dev/null || { echo "ffprobe is not in the initramfs"; exit 1; }
start_tripod vboard
tripod_ctl set video.bitrate 2M
# tripod ctl prints the events that came before the reply too (record.started): the reply is last.
out="$(tripod_ctl record start)" || true
echo "$out"
reply="$(echo "$out" | tail -n1)"
case "$reply" in ok*) ;; *) stop_tripod; echo "record start was refused: $reply"; exit 1 ;; esac
file="$(echo "$reply" | sed -n 's/.* file=\([^ ]*\).*/\1/p')"
sleep 5
tripod_ctl status | tr ' ' '\n' | grep '^recording' || true
tripod_ctl record stop || true
i=0
while [ $i -lt 120 ] && ! tripod_ctl status | grep -q "recording=off"; do sleep 0.5; i=$((i + 1)); done
stop_tripod
path="/tmp/captures/$file"
[ -s "$path" ] || { ls -lR /tmp/captures; echo "no video file at $path"; exit 1; }
sidecar="${path%.*}.json"
frames="$(tr -d ' \n' < "$sidecar" | sed -n 's/.*"framesWritten":\([0-9]*\).*/\1/p')"
probe="$(ffprobe -v error -select_streams v:0 -count_frames -show_entries stream=codec_name,nb_read_frames -of csv=p=0 "$path")"
echo "ffprobe: $probe; sidecar framesWritten: $frames"
[ -n "$frames" ] && [ "$frames" -gt 0 ] || { cat "$sidecar"; echo "the sidecar says no frame was written"; exit 1; }
[ "$probe" = "h264,$frames" ] || { cat "$sidecar"; echo "ffprobe read '$probe', expected h264 with $frames frames"; exit 1; }
echo "tripod recorded $frames frames from vimc into $file; ffprobe decodes all of them"
