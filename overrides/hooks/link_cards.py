"""MkDocs hook: every page's link-preview image, drawn at build time with no network.

A forum, a chat or an issue tracker unfurls a pasted link into a card; with an image
(`og:image`, `twitter:card: summary_large_image`) the card is large enough to read the page's
title. Material's social plugin draws such images, but it downloads Google Fonts at build
time, and the build must stay offline. This hook draws them with Pillow, pinned in
requirements.txt (matplotlib, which plots the costs page's chart, needs it too): its wheel
draws text into a PNG with no network and no system package. The font is DejaVu Sans from
matplotlib's own data, so a clean clone draws the same pictures on any machine:
`assets/cards/<page>.png`, 1200x630, the size forums and chats show whole. overrides/main.html
writes the tags from `page.meta["card"]`.
"""

import importlib.util
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

SIZE = (1200, 630)
MARGIN = 72
BACKGROUND = "#263238"
ACCENT = "#ff7043"  # the site's deep orange
TEXT = "#ffffff"
MUTED = "#b0bec5"
ERROR = "RuntimeError: Trying to backward through the graph a second time"
_FONTS = Path(importlib.util.find_spec("matplotlib").origin).parent / "mpl-data" / "fonts" / "ttf"


def card_path(page) -> str:
    """`assets/cards/scenarios/gan.png` for scenarios/gan/, `assets/cards/index.png` for /."""
    stem = page.url.strip("/") or "index"
    stem = stem.removesuffix(".html")
    return f"assets/cards/{stem}.png"


def on_page_context(context, page, config, nav):
    path = card_path(page)
    page.meta["card"] = path
    title = page.meta.get("title") or page.title or config["site_name"]
    target = Path(config["site_dir"]) / path
    target.parent.mkdir(parents=True, exist_ok=True)
    # 64 colours hold the antialiased text, in 40% of the bytes of full colour.
    card = draw_card(title, config["site_name"]).quantize(colors=64)
    card.save(target, optimize=True)
    return context


def _font(name: str, size: int):
    return ImageFont.truetype(str(_FONTS / name), size)


def draw_card(title: str, site_name: str) -> Image.Image:
    image = Image.new("RGB", SIZE, BACKGROUND)
    draw = ImageDraw.Draw(image)
    width, height = SIZE
    draw.rectangle((0, 0, 16, height), fill=ACCENT)
    draw.text((MARGIN, MARGIN - 8), site_name, font=_font("DejaVuSans-Bold.ttf", 40), fill=ACCENT)
    # The longest titles (a scenario's full name) still fit: smaller type, then an ellipsis.
    room = width - 2 * MARGIN
    for size in (64, 56, 48, 42):
        font = _font("DejaVuSans-Bold.ttf", size)
        lines = _wrap(title, font, room)
        if len(lines) <= 5:
            break
    if len(lines) > 5:
        lines = lines[:4] + [lines[4] + " …"]
    top = MARGIN + 80
    for line in lines:
        draw.text((MARGIN, top), line, font=font, fill=TEXT)
        top += int(size * 1.25)
    code = _font("DejaVuSansMono.ttf", 24)
    draw.text((MARGIN, height - MARGIN - 24), ERROR, font=code, fill=MUTED)
    return image


def _wrap(text: str, font, room: int) -> list[str]:
    """Words into lines no wider than `room` pixels."""
    lines = [""]
    for word in text.split():
        line = f"{lines[-1]} {word}".strip()
        if font.getlength(line) <= room or not lines[-1]:
            lines[-1] = line
        else:
            lines.append(word)
    return lines
