"""The Record tab's widgets and layout (``setupUi`` style: :func:`build` creates the
widgets as attributes of the panel and connects them to its slots)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ..annotation.annotate import TranscriptEditor
from ..annotation.annotator_field import AnnotatorField
from ..audio.devices import DeviceBox
from ..audio.player import AudioPlayer
from ..widgets.fit_scroll import FitScrollArea, wheel_scrolls_page
from .record_quota import QuotaBox
from .record_widgets import LevelMeter, SpeakerForm


def build(panel) -> None:
    """Create the Record tab's widgets on ``panel`` (a :class:`RecordPanel`): the speaker form
    and the audio devices and prompt list on the left (scrolling on a small screen), the
    prompt card, takes, player and transcript editor on the right."""
    panel.form = SpeakerForm()
    panel.dataset, panel.speaker_id, panel.meta = (
        panel.form.dataset,
        panel.form.speaker_id,
        panel.form.meta,
    )
    panel.form.changed.connect(panel._form_changed)
    spk_box = QGroupBox()
    sv = QVBoxLayout(spk_box)
    sv.setContentsMargins(6, 2, 6, 6)
    sv.addWidget(panel.form)

    panel.devices = DeviceBox()
    dev_box = QGroupBox("Audio")
    dv = QVBoxLayout(dev_box)
    dv.setContentsMargins(6, 4, 6, 6)
    dv.addWidget(panel.devices)

    panel.list_combo = QComboBox()
    for name in panel.lists:
        panel.list_combo.addItem(name.replace("_", " "), name)
    panel.list_combo.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
    panel.list_combo.setMinimumContentsLength(12)
    panel.open_btn = QPushButton("Open…")
    panel.open_btn.setToolTip(
        "open a prompt list (.txt: one prompt per line, # comments; "
        ".jsonl: text, content_id, gloss, intent, slots)"
    )
    panel.language = QLineEdit()
    panel.language.setPlaceholderText("language code")
    panel.language.setMaximumWidth(80)
    panel.prompts = QListWidget()
    panel.prompts.setAlternatingRowColors(True)
    panel.prompts.setMinimumHeight(120)
    panel.list_note = QLabel("")
    panel.list_note.setObjectName("muted")
    panel.list_note.setWordWrap(True)
    panel.list_note.setTextFormat(Qt.PlainText)
    lrow = QHBoxLayout()
    lrow.addWidget(panel.list_combo, 1)
    lrow.addWidget(panel.open_btn)
    langrow = QHBoxLayout()
    langrow.addWidget(QLabel("Language"))
    langrow.addWidget(panel.language)
    langrow.addStretch(1)
    pv = QVBoxLayout()
    pv.addLayout(lrow)
    pv.addLayout(langrow)
    pv.addWidget(panel.prompts, 1)
    pv.addWidget(panel.list_note)
    prompt_box = QGroupBox("Prompts")
    prompt_box.setLayout(pv)

    left_inner = QWidget()
    lv = QVBoxLayout(left_inner)
    lv.setContentsMargins(0, 0, 4, 0)
    panel.quota = QuotaBox(panel)  # the newest recording plan's quota (hidden without one)
    lv.addWidget(panel.quota)
    lv.addWidget(spk_box)
    lv.addWidget(dev_box)
    lv.addWidget(prompt_box, 1)
    left = FitScrollArea(left_inner)  # a small screen scrolls the form instead of clipping it
    left.setMinimumWidth(260)
    left.setMaximumWidth(440)
    panel.left = left

    # the prompt card
    panel.counter = QLabel("")
    panel.counter.setObjectName("muted")
    panel.counter.setTextFormat(Qt.PlainText)
    panel.counter.setWordWrap(True)  # a long list title wraps at 1024 px
    panel.prompt_label = QLabel("")
    panel.prompt_label.setTextFormat(Qt.PlainText)
    panel.prompt_label.setAlignment(Qt.AlignCenter)
    panel.prompt_label.setWordWrap(True)
    panel.prompt_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
    f = QFont(panel.prompt_label.font())
    f.setPointSize(30)
    panel.prompt_label.setFont(f)
    panel.prompt_label.setMinimumHeight(54)
    panel.gloss = QLabel("")
    panel.gloss.setTextFormat(Qt.PlainText)
    panel.gloss.setAlignment(Qt.AlignCenter)
    panel.gloss.setObjectName("muted")
    gf = QFont(panel.gloss.font())
    gf.setPointSize(13)
    gf.setItalic(True)
    panel.gloss.setFont(gf)
    panel.prev_btn = QPushButton("◀  Previous")
    panel.next_btn = QPushButton("Next  ▶")
    panel.prev_btn.setToolTip("previous prompt (Alt+Left)")
    panel.next_btn.setToolTip("next prompt (Alt+Right)")
    panel.record_btn = QPushButton("●  Record")
    panel.record_btn.setObjectName("primary")
    panel.record_btn.setMinimumWidth(110)
    panel.elapsed = QLabel("0:00.0")
    panel.elapsed.setMinimumWidth(52)
    panel.meter = LevelMeter()
    panel.no_input = QLabel("")
    panel.no_input.setObjectName("muted")
    panel.no_input.setWordWrap(True)
    panel.no_input.setTextFormat(Qt.PlainText)
    nav = QHBoxLayout()
    nav.addWidget(panel.prev_btn)
    nav.addWidget(panel.next_btn)
    nav.addSpacing(12)
    nav.addWidget(panel.record_btn)
    nav.addWidget(panel.elapsed)
    nav.addWidget(panel.meter, 1)

    panel.live = pg.PlotWidget()
    panel.live.setMinimumHeight(50)
    panel.live.setMaximumHeight(120)
    panel.live.setMenuEnabled(False)
    panel.live.setMouseEnabled(x=False, y=False)
    panel.live.hideButtons()
    panel.live.getPlotItem().getAxis("left").setWidth(48)
    panel.live.getPlotItem().getAxis("bottom").setLabel("s")
    panel.live.setYRange(-1, 1, padding=0.05)
    panel.live.setXRange(0, 3, padding=0)
    panel._live_lo = pg.PlotDataItem(pen=pg.mkPen("#c62828", width=1))
    panel._live_hi = pg.PlotDataItem(pen=pg.mkPen("#c62828", width=1))
    panel._live_fill = pg.FillBetweenItem(
        panel._live_lo, panel._live_hi, brush=pg.mkBrush(198, 40, 40, 140)
    )
    for it in (panel._live_lo, panel._live_hi, panel._live_fill):
        panel.live.addItem(it)

    card = QVBoxLayout()
    card.setSpacing(4)
    card.addWidget(panel.counter)
    card.addWidget(panel.prompt_label)
    card.addWidget(panel.gloss)
    card.addLayout(nav)
    card.addWidget(panel.no_input)
    card.addWidget(panel.live)
    card_box = QGroupBox("Prompt")
    card_box.setLayout(card)

    # takes and playback
    panel.takes = QListWidget()
    panel.takes.setMinimumHeight(60)
    panel.accept_btn = QPushButton("✓ Accept")
    panel.accept_btn.setToolTip(
        "accept the selected take: make it the dataset item of this prompt "
        "(other takes stay on disk) (Ctrl+Return)"
    )
    panel.again_btn = QPushButton("Re-record")
    panel.again_btn.setToolTip("record a new take of this prompt; earlier takes are kept (Ctrl+R)")
    panel.player = AudioPlayer(panel.ctx.jobs)
    panel.player.message.connect(panel.ctx.status)
    # the take list and its buttons beside the player (not above it): fits 768 px high
    col = QWidget()
    cv = QVBoxLayout(col)
    cv.setContentsMargins(0, 0, 0, 0)
    brow = QHBoxLayout()
    brow.addWidget(panel.accept_btn)
    brow.addWidget(panel.again_btn)
    cv.addLayout(brow)  # above the list: in sight at 768 px (below it they were half cut)
    cv.addWidget(panel.takes, 1)
    # wide enough for the two buttons' whole labels (they read "Accept t", "le-recor" at
    # 1024 px)
    buttons = panel.accept_btn.sizeHint().width() + panel.again_btn.sizeHint().width()
    col.setMinimumWidth(max(170, buttons + brow.spacing() + 2))
    col.setMaximumWidth(300)
    tv = QHBoxLayout()
    tv.addWidget(col)
    tv.addWidget(panel.player, 1)
    takes_box = QGroupBox("Takes")
    takes_box.setLayout(tv)
    # the player's plots and control rows never squeezed below their minimum (the group box's
    # height-for-width minimum forgets them)
    takes_box.setMinimumHeight(takes_box.minimumSizeHint().height())

    panel.transcript = TranscriptEditor()
    # who annotates: the same field (and name) as the Items view's annotation panel
    panel.annotator = AnnotatorField(panel.ctx)
    who = QHBoxLayout()
    who.addWidget(QLabel("Annotator:"))
    who.addWidget(panel.annotator)
    who.addStretch(1)
    tr = QVBoxLayout()
    tr.addLayout(who)
    tr.addWidget(panel.transcript)
    panel.transcript_box = QGroupBox("Transcript (what the speaker said; saved as you type)")
    panel.transcript_box.setLayout(tr)

    panel.message = QLabel("")
    panel.message.setWordWrap(True)

    right_inner = QWidget()
    rv = QVBoxLayout(right_inner)
    rv.setContentsMargins(0, 0, 0, 0)
    rv.addWidget(card_box)
    rv.addWidget(takes_box, 1)
    rv.addWidget(panel.transcript_box)
    rv.addWidget(panel.message)
    right = FitScrollArea(right_inner)
    # the wheel over the live strip or the take's plots scrolls this page, never zooms them
    wheel_scrolls_page(panel.live, panel.player.wave, panel.player.spec)

    panel.split = split = QSplitter()
    split.addWidget(left)
    split.addWidget(right)
    split.setStretchFactor(1, 1)
    split.setSizes([330, 1000])
    lay = QVBoxLayout(panel)
    lay.setContentsMargins(4, 4, 4, 4)
    lay.addWidget(split)

    panel.list_combo.currentIndexChanged.connect(lambda _i: panel._load_list())
    panel.open_btn.clicked.connect(lambda: panel.open_list())  # not clicked's bool as path
    panel.language.textChanged.connect(lambda _t: panel._form_changed())
    panel.prompts.currentRowChanged.connect(panel._row_changed)
    panel.prev_btn.clicked.connect(lambda: panel.go(panel.index - 1))
    panel.next_btn.clicked.connect(lambda: panel.go(panel.index + 1))
    panel.record_btn.clicked.connect(panel.toggle_record)
    panel.again_btn.clicked.connect(panel.start_recording)
    panel.accept_btn.clicked.connect(panel.accept)
    panel.takes.currentRowChanged.connect(panel._take_selected)
    panel.transcript.save_requested.connect(panel._save_transcript)
    for key, slot in (
        (Qt.Key_Space, panel.toggle_record),
        (QKeySequence("Alt+Right"), lambda: panel.go(panel.index + 1)),
        (QKeySequence("Alt+Left"), lambda: panel.go(panel.index - 1)),
        (QKeySequence("Ctrl+Return"), panel._accept_key),
        (QKeySequence("Ctrl+R"), panel._again_key),
    ):
        sc = QShortcut(QKeySequence(key), panel)
        sc.setContext(Qt.WidgetWithChildrenShortcut)  # text fields keep their Space
        sc.activated.connect(slot)
