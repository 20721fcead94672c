"""A tmux capture (text) as a PNG that looks like the terminal: 80x24 cells, monospace.

    tmux new-session -d -s t -x 80 -y 24 "referee demo --live --no-window --no-voice"
    tmux capture-pane -p -t t > /tmp/screen.txt
    python docs/img/terminal_shot.py /tmp/screen.txt docs/img/live-terminal-80x24.png

(Pillow and the DejaVu Sans Mono font; what docs/live.md's terminal pictures were made with.)
"""
import sys
from PIL import Image, ImageDraw, ImageFont

src, dst = sys.argv[1], sys.argv[2]
cols, rows = 80, 24
lines = open(src, encoding="utf-8").read().split("\n")[:rows]
font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", 14)
cjk = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
try:
    wide = ImageFont.truetype(cjk, 14)
except OSError:
    wide = font
cw = round(font.getlength("M")); ch = 18
img = Image.new("RGB", (cols * cw + 16, rows * ch + 16), (28, 28, 28))
d = ImageDraw.Draw(img)
import unicodedata
for r, line in enumerate(lines):
    x = 8
    for c in line:
        w2 = unicodedata.east_asian_width(c) in "WF"
        d.text((x, 8 + r * ch), c, font=wide if w2 else font, fill=(224, 224, 224))
        x += cw * (2 if w2 else 1)
img.save(dst, optimize=True)
