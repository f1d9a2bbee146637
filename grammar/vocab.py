"""The fixed vocabulary: every word the grammar knows that is not a home's own name.

Each table maps a surface form to the payload its token carries. This file is
data, reviewed like code: adding a synonym here is how the grammar learns it.
Surfaces are in normalised form (simplified, half-width, lower case).
"""

from __future__ import annotations

from typing import Any

# Said before anything else to wake a speaker; dropped like fillers.
WAKE_WORDS = ("小爱同学", "小爱", "天猫精灵", "小度小度", "小度", "嘿siri", "heysiri", "你好小智")

# Greetings: a word of another domain said alone (你好), said to the assistant before a
# command (你好，打开灯: compiler/lexicon.py makes it a filler there).
GREETINGS = (
    *("你好", "您好", "早上好", "晚上好", "下午好", "中午好", "嗨", "你好呀", "您好呀"),
    "侬好",  # Wu 你好
)

# The speaker saying they want it (我要开灯, 俺想看电视, 人家要开灯), in the registers'
# words for "I": fillers, composed below.
SPEAKERS = ("我", "俺", "人家", "阿拉", "我哋", "咱")
WANTING = tuple(who + want for who in SPEAKERS for want in ("要", "想", "想要"))

# Politeness and particles: they never change the meaning, so the lexer drops them.
FILLERS = (
    *WANTING,
    "请",
    "请你",
    "麻烦",
    "麻烦你",
    "麻烦您",
    "帮我",
    "帮忙",
    "帮",
    "帮手",  # Cantonese 幫手閂咗個冷氣
    "给我",
    "替我",
    "一下",
    "一下子",
    "下",
    "吧",
    "吗",
    "么",  # as 吗 (开着么)
    "呢",
    "啊",
    "呀",
    "哦",
    "嗯",
    "哈",
    "啦",
    "呗",
    "嘛",
    "来着",  # 设的几度来着: asked again
    "了",
    "谢谢",
    "谢谢你",
    "谢啦",
    "好吗",
    "行吗",
    "可以吗",
    "好不好",
    "行不行",
    "现在",
    "而家",  # Cantonese 现在
    "依家",
    "这会儿",
    "那边",  # 饭厅那边 is the dining room
    "区域",  # 门口区域 too
    "那里",  # as 那边
    "那儿",
    "正在",
    "已经",
    "已",
    "处于",
    "宜家",
    "马上",
    "立刻",
    "赶紧",
    "快",
    "你",
    "您",
    "侬",  # Wu (Shanghainese) 你
    "想",
    "要",
    "能不能",
    "能否",
    "可不可以",
    "的话",
    "先",
    "也",
    "还",
    "就好",
    "就行",
    "一起",
    "给",
    "那",
    "那么",
    "嘿",
    "咯",
    "哟",
    "啰",
    "呃",
    "那个啥",
    "还是",
    "请问",
    "显示",
    "换",
    "放",
    "目前",
    "当前",
    "喂",
    "是",
    "是否",  # a copula that asks: 灯是否打开 (compiler/lexicon.py reads the state after it)
    "是不是",
    "系唔系",  # Cantonese 是不是
    "是唔是",
    "正",  # 正关上: being closed, as 正在
    "跳到",  # 跳到下一首: the step is the command
    "跳",
    "系",  # Cantonese 是 (係)
    "喽",
    "咧",
    "唔该",
    "麻烦晒",
    # Taiwanese polite openers, and Cantonese particles that add nothing to a command:
    # 埋 (開埋 = open too), 喇/啦 (sentence-final), 佢 after what it resumes (see lexicon).
    "劳驾",
    "帮个忙",
    "帮个忙吧",
    "埋",
    "喇",
    "嘞",
    "咯喎",
    "较",  # Cantonese 较细声啲 (a bit quieter): the 啲 says it already
)

# What a preset is called before 风 or 模式 (自然风, 睡眠模式): see TABLES["PRESET"].
_PRESET_STEMS = (
    "自然",
    "睡眠",
    "婴儿",
    "宝宝",
    "舒适",
    "节能",
    "省电",
    "强劲",
    "柔",
    "静音",
    "夜间",
)

# Preset words that name the same thing in other words: a fan's 睡眠风 is its 睡眠模式,
# and Home Assistant's preset_modes are English (sleep, nature).
PRESET_TAILS = ("模式", "风", "档")
PRESET_ENGLISH: dict[str, tuple[str, ...]] = {
    "睡眠": ("sleep", "sleeping", "night"),
    "夜间": ("night", "sleep"),
    "自然": ("nature", "natural"),
    "婴儿": ("baby",),
    "宝宝": ("baby",),
    "节能": ("eco",),
    "省电": ("eco",),
    "舒适": ("comfort",),
    "强劲": ("boost", "turbo", "strong"),
    "强力": ("boost", "turbo", "strong"),
    "静音": ("silent", "quiet"),
    "自动": ("auto", "smart"),
    "智能": ("smart", "auto"),
}

# Words in a switch's or cover's name, alias or description that say what it opens in fact
# (issue 19): a gas or water valve, a door strike or lock, a garage door or gate on a relay.
# Importers type such a device by them, so the risk gate sees what turning it on opens.
GUARDED_NAME_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Valve", ("燃气", "煤气", "天然气", "阀", "valve", "gas")),
    ("Lock", ("门锁", "门禁", "电锁", "电控锁", "磁力锁", "锁", "lock", "strike", "latch")),
    ("GarageDoor", ("车库", "卷帘门", "院门", "大门", "garage", "gate")),
)

# A hue said (红色) as the colour a `color` light is set to: (hue 0–359, saturation 0–100).
HUES: dict[str, tuple[int, int]] = {
    "red": (0, 100),
    "orange": (30, 100),
    "yellow": (60, 100),
    "green": (120, 100),
    "cyan": (180, 100),
    "blue": (240, 100),
    "purple": (280, 100),
    "pink": (330, 50),
}

# 一点 and its everyday forms, Cantonese 啲 and 少少 and Taiwan's 一些些 among them: a relative
# change's "a bit".
_A_LITTLE = (
    "一点",
    "一点点",
    "一些",
    "点",
    "些",
    "一点儿",
    "点儿",
    "一丢丢",
    "啲",
    "少少",
    "一些些",
    "些些",
    "一丁点",
    "一丁点儿",
)

# Faster and slower (issue 21): a fan's speed, one level. 快 alone stays a filler (快开灯 is
# "hurry"), so the pace words are said with their 一点 (快啲, 慢一点) or their verb (调快):
# (direction, by its verb). 快啲 before a command (快啲開燈) is "hurry" too: jiayu.lark.
_PACES = {"快": 1, "慢": -1}
_PACE_VERBS = ("调", "开", "转")

# Words for a fan's or an air conditioner's swing, said as the feature (TABLES "FEATURE").
_SWINGS = ("摇头", "摆头", "摇摆", "摆风", "扫风", "左右扫风", "上下扫风", "左右摆风")
# The classifiers a set question counts or picks with: 几盏灯, 哪扇门.
_SET_CLASSIFIERS = ("个", "盏", "台", "只", "扇", "部", "组", "道", "把")
# What is played, said after a track's classifier (下一首歌, 这首曲目), or not said.
PLAYED = ("", "歌", "歌曲", "曲目", "曲", "台")
# Read by the lexicon too: a classifier said again after a set question's (有几个道门).
SET_CLASSIFIERS = frozenset(_SET_CLASSIFIERS)
TABLES: dict[str, dict[str, Any]] = {
    # The 打开 and 关闭 clusters; the per-device command is chosen by the resolver. These are
    # the words no morphology composes: the verb stems and the lexicalised forms, each listed
    # once. Their forms with complements and aspects (开起来, 关掉了, 整开, 开一哈, 闩埋) are
    # composed by grammar/morphology.py from ON_STEMS, OFF_STEMS and the tables below them.
    "ON": dict.fromkeys(
        (
            "执行",
            "进入",
            "亮起",
            "升起来",
            "拉起来",
            "升起",
            "走起",
            "打开来",
            "拉开来",  # 把窗帘拉开来
            "掀开来",
            "解锁",
            "开锁",
            "解开",  # 解开后门锁: undo what holds it
            "点上",
            "着",  # Cantonese 着 (着灯: turn the light on)
        ),
        "on",
    ),
    "OFF": dict.fromkeys(
        (
            "拉上",
            "拉埋",  # Cantonese: 拉埋窗簾 draws them together
            "合上",
            "反锁",
            "上锁",
            "放下来",
            "拉下来",
            "降下来",
            "放下",
            "关闭掉",
            "熄灭掉",
            "停用",
            "禁用",  # Taiwan's 停用, as tw2sp's phrases write it
            "关火",
            "关气",
            "关煤气",
            "关燃气",
            "断开",
            "断电",
            "关喽",
        ),
        "off",
    ),
    # Verbs that take a value after their 到/成/为 (调到26度): composed from SET_STEMS and
    # SET_TO; these few take it with no such word.
    # (来个, 弄个, 搞个 are composed: SETTING_BY_ONE)
    "SET": dict.fromkeys(("来点", "调去", "调返", "校去", "校返"), "set"),
    # A verb that names its target before the value: 设置空调温度为26度.
    "SETV": dict.fromkeys(
        ("设置", "设定", "调", "调整", "校", "调节", "变更", "设", "调教", "定"), "set"
    ),
    "TO": dict.fromkeys(("到", "为", "成", "至", "在", "喺"), "to"),  # Cantonese 喺 is 在
    # Relative changes: (attribute or None, direction, warmth). A change verb before an
    # adjective (调亮, 变小, 开大) is composed from CHANGE_VERBS and ADJ; these are the verbs
    # that say their direction themselves.
    "REL": {
        **dict.fromkeys(
            ("升高", "提高", "加大", "增大", "升", "加", "增加", "加高", "调升", "提升"),
            (None, 1, 0),
        ),
        **dict.fromkeys(
            ("降低", "减小", "降", "减", "降下", "减少", "减低", "调降"),
            (None, -1, 0),
        ),
        # 调快/开慢/转快 (把风扇调快); with 一点 they are PACE words (风扇调快啲).
        **{v + p: ("fan_speed", d, 0) for p, d in _PACES.items() for v in _PACE_VERBS},
    },
    # Adjectives that make a relative change with 一点 (亮一点) or name a level (风速高).
    "ADJ": {
        "亮": ("brightness", 1, 0),
        "暗": ("brightness", -1, 0),
        "高": (None, 1, 0),
        "低": (None, -1, 0),
        "大": (None, 1, 0),
        "小": (None, -1, 0),
        "暖": (None, 0, 1),
        "冷": (None, 0, -1),
        "凉": (None, 0, -1),
        "热": (None, 0, 1),
        "大声": ("volume", 1, 0),
        "小声": ("volume", -1, 0),
        "细声": ("volume", -1, 0),
        "细": (None, -1, 0),  # Cantonese 细 (small): 校细啲, 细啲
        "中": (None, 0, 0),
        "强": (None, 1, 0),
        "弱": (None, -1, 0),
        # Said of the air, never of a light's colour (暖光 is): the set point's.
        "凉快": ("target_temperature", -1, 0),
        "暖和": ("target_temperature", 1, 0),
        "亮堂": ("brightness", 1, 0),
        # Cantonese: 冻 is cold to the touch (冷气冻啲 = the set point down a step), never a
        # light's colour (冷光 is).
        "冻": ("target_temperature", -1, 0),
    },
    "YIDIAN": dict.fromkeys(_A_LITTLE, 1),
    # A fan faster or slower by a bit: 快啲, 慢一点, 调快些 (see _PACES).
    "PACE": {
        verb + pace + little: ("fan_speed", d, 0)
        for pace, d in _PACES.items()
        for verb in ("", *_PACE_VERBS)
        for little in _A_LITTLE
    },
    # Extremes: (attribute or None, direction).
    "EXTREME": {
        "最亮": ("brightness", 1),
        "最暗": ("brightness", -1),
        "最光": ("brightness", 1),  # Cantonese 光 (bright)
        "最黑": ("brightness", -1),
        "最大": (None, 1),
        "最小": (None, -1),
        "最高": (None, 1),
        "最低": (None, -1),
        "最大声": ("volume", 1),
        "最小声": ("volume", -1),
        "最冷": ("target_temperature", -1),
        "最热": ("target_temperature", 1),
        "最强": (None, 1),
        "最弱": (None, -1),
        "拉满": (None, 1),
        "开满": (None, 1),
        "调满": (None, 1),
        "开到最大": (None, 1),
        "调到最大": (None, 1),
        "调到最小": (None, -1),
        "调到最亮": ("brightness", 1),
        "调到最暗": ("brightness", -1),
    },
    # Attributes; 温度 means the sensors' temperature unless a set point is meant.
    "ATTR": {
        # No device here reports its battery: asked, it is refused by name, and 电量 is never
        # heard as 点亮 (门锁电量 asked to unlock the lock).
        **dict.fromkeys(("电量", "电池", "电池电量", "剩余电量"), "battery"),
        "亮度": "brightness",
        "色温": "color_temp",
        "温度": "temperature",
        "室温": "temperature",
        "气温": "temperature",
        "设定温度": "target_temperature",
        "目标温度": "target_temperature",
        "设置温度": "target_temperature",
        "模式": "mode",
        "风速": "fan_speed",
        "风量": "fan_speed",
        "风力": "fan_speed",
        "风": "fan_speed",
        "音量": "volume",
        "声音": "volume",
        "声": "volume",  # 电视声整小点, Cantonese 啲声: the sound
        "湿度": "humidity",
        "光照": "illuminance",
        "照度": "illuminance",
        "光线": "illuminance",
        "位置": "position",
        "开合度": "position",
        "遮光": "position",
        "遮光度": "position",
        "遮光率": "position",
        "开度": "position",
        "状态": "state",
        "状况": "state",
        "速度": "fan_speed",
        "转速": "fan_speed",
        "档位": "fan_speed",
        "风档": "fan_speed",
        # Capabilities of revision 3 (issue 20); 湿度 in a command is the set point.
        "颜色": "color",
        "颜色温度": "color_temp",  # 色温 said in full
        "色彩": "color",
        "灯光颜色": "color",
        "光的颜色": "color",
        "设定湿度": "target_humidity",
        "目标湿度": "target_humidity",
        "设置湿度": "target_humidity",
        "角度": "tilt",
        "百叶": "tilt",
        "百叶角度": "tilt",
        "叶片角度": "tilt",
        "叶片": "tilt",
        "倾角": "tilt",
        "倾斜角度": "tilt",
    },
    # °c, ℃ and ° reach the lexer as 度 (the normaliser rewrites them).
    "DEG": dict.fromkeys(("度", "摄氏度"), "°C"),
    "DEG_HALF": dict.fromkeys(("度半",), 0.5),
    "PCT": dict.fromkeys(("%", "个百分点", "趴"), "%"),  # 趴: Taiwan's "percent"
    "PCT_PRE": dict.fromkeys(("百分之",), "%"),
    # 三分之一: a fraction, said between its whole and its part (a share of 100%).
    "FRACTION": dict.fromkeys(("分之",), "%"),
    "KELVIN": dict.fromkeys(("k", "开尔文"), "K"),
    "HALF": dict.fromkeys(("一半", "半开", "一半儿"), 50),
    # A fan's speed said as steps: 大一档 / 调低一档 (one level along low → medium → high).
    # Steps of a change (调高一档, 音量大两格) are composed: NOTCH_COUNTS × NOTCH_UNITS.
    # Named light colours (CONTRACTS.md §1): the engine maps them within the light's limits.
    "COLOR": {
        "暖光": "warm",
        "烛光": "warm",  # candlelight: the warmest white
        "蜡烛光": "warm",
        "暖白光": "warm",
        "暖黄光": "warm",
        "暖色": "warm",
        "暖色光": "warm",
        "黄光": "warm",
        "冷光": "cool",
        "冷白光": "cool",
        "白光": "cool",
        "正白光": "cool",
        "正白": "cool",
        "日光": "cool",
        "冷色": "cool",
        "冷色光": "cool",
        "自然光": "natural",
        "中性光": "natural",
        "自然白": "natural",
        # The same with 色 (暖白色), and hues for a light with the color capability (HUES).
        "暖白色": "warm",
        "暖黄色": "warm",
        "暖白": "warm",
        "暖黄": "warm",
        "暖色调": "warm",
        "冷白色": "cool",
        "冷白": "cool",
        "冷色调": "cool",
        "白色": "cool",
        "自然色": "natural",
        "中性色": "natural",
        **{
            word + tail: hue
            for hue, words in (
                ("red", ("红", "大红")),
                # Brown (棕, 咖啡) is a dark orange: a light shows it as the orange hue.
                ("orange", ("橙", "橘", "橘黄", "棕", "咖啡")),
                ("yellow", ("黄",)),
                ("green", ("绿",)),
                ("cyan", ("青", "青绿")),  # 青绿: turquoise
                ("blue", ("蓝",)),
                ("purple", ("紫",)),
                ("pink", ("粉", "粉红")),
            )
            for word in words
            for tail in ("色", "光", "颜色", "色的", "色光")
            if word + tail != "黄光"  # 黄光 is the warm white above
        },
    },
    # A fan's, purifier's or humidifier's presets as people say them; the planner matches
    # the word to the device's own `presets` (睡眠风 is a fan's 睡眠模式). A home's own
    # preset words are added by the lexicon.
    "PRESET": {
        word: word
        for word in (
            *(stem + tail for stem in _PRESET_STEMS for tail in ("风", "模式") if stem != "柔"),
            "柔风",
            "强劲风",
            "强力模式",
            "静音模式",
            "夜间模式",
            "标准模式",
            "睡眠",
        )
    },
    "MODE": {
        "制冷": "cool",
        "冷风": "cool",
        "制热": "heat",
        "暖风": "heat",
        "热风": "heat",
        "取暖": "heat",
        "除湿": "dry",
        "抽湿": "dry",
        "干燥": "dry",
        "送风": "fan",
        "通风": "fan",
        "自动": "auto",
        "智能": "auto",
    },
    "SPEED": {
        "高速": "high",
        "高风": "high",
        "高档": "high",
        "强风": "high",
        "大风": "high",
        "中速": "medium",
        "中风": "medium",
        "中档": "medium",
        "低速": "low",
        "低风": "low",
        "低档": "low",
        "弱风": "low",
        "小风": "low",
        "微风": "low",
        "自动风": "auto",
        "自动风速": "auto",
    },
    # Type words: the type they stand for.
    "TYPE": {
        "灯": "Light",
        "电灯": "Light",
        "灯泡": "Light",
        "电灯泡": "Light",
        # Regional words: Cantonese 电灯胆 (a light bulb), northern 暖气 (the heating).
        "电灯胆": "Light",
        "灯胆": "Light",
        "灯光": "Light",
        "照明": "Light",
        "插座": "SmartPlug",
        "插头": "SmartPlug",
        "排插": "SmartPlug",
        "开关": "Switch",
        "通断器": "Switch",
        "开关掣": "Switch",  # Cantonese: a wall switch (hk2s writes 开关制)
        "开关制": "Switch",
        "总开关": "Switch",  # a device's own main switch (水泵的总开关), or a home's
        "电源": "Power",  # what a switch or a plug cuts (a family): 关掉电源, 有电源开着吗
        "空调": "AirConditioner",
        "冷气机": "AirConditioner",
        "冷气": "AirConditioner",
        "门": "Lock",
        "房门": "Lock",
        "窗帘": "Blind",
        "帘子": "Blind",
        "百叶窗": "Blind",
        "风扇": "Fan",
        "电扇": "Fan",
        "电风扇": "Fan",
        "吊扇": "Fan",
        "落地扇": "Fan",
        "台扇": "Fan",
        "热水器": "WaterHeater",
        "电热水器": "WaterHeater",
        "燃气热水器": "WaterHeater",
        "大门": "Lock",
        "大门锁": "Lock",
        "入户门": "Lock",
        "防盗门": "Lock",
        "窗": "Blind",
        "音乐": "NetworkAudio",
        "歌": "NetworkAudio",
        "歌曲": "NetworkAudio",
        "曲目": "NetworkAudio",
        "播放器": "NetworkAudio",
        "媒体播放器": "NetworkAudio",
        "媒体": "NetworkAudio",
        "节目": "NetworkAudio",  # what is played: a player
        "电视": "Television",
        "电视机": "Television",
        "音箱": "NetworkAudio",
        "音响": "NetworkAudio",
        "喇叭": "NetworkAudio",
        "门锁": "Lock",
        "锁": "Lock",
        "阀": "Valve",
        "阀门": "Valve",
        "取暖器": "Heater",
        "暖风机": "Heater",
        "暖气": "Heater",
        "暖炉": "Heater",
        "加湿器": "Humidifier",
        "净化器": "Purifier",
        "空气净化器": "Purifier",
        "洗衣机": "Washer",
        "充电器": "Charger",
        "传感器": "Sensor",
        "网关": "Hub",
        # Types of revision 3 (issue 20).
        "扫地机器人": "Vacuum",
        "扫地机": "Vacuum",
        "扫拖机器人": "Vacuum",
        "扫拖一体机": "Vacuum",
        "拖地机器人": "Vacuum",
        "吸尘器": "Vacuum",
        "除湿机": "Dehumidifier",
        "抽湿机": "Dehumidifier",
        "除湿器": "Dehumidifier",
        "烘干机": "Dryer",
        "干衣机": "Dryer",
        "烘衣机": "Dryer",  # Taiwanese
        "车库门": "GarageDoor",
        "车房门": "GarageDoor",  # Cantonese 车房 (garage)
        "卷帘门": "GarageDoor",
        "车库卷帘门": "GarageDoor",
        "铁卷门": "GarageDoor",  # Taiwanese 鐵捲門
        "卷闸门": "GarageDoor",  # Cantonese 閘
        "卷闸": "GarageDoor",
        "设备": None,
        "电器": None,
        "东西": None,
    },
    # Kinds of device narrower than a type (吸顶灯 is a Light, but 所有吸顶灯 must not mean
    # every light): lexed as names, so the resolver finds them by name or refuses, never
    # widens them to the type. A home's own names take these words over.
    "NAME": {
        word: word
        for word in (
            # A window, an awning, a roller blind are not every cover (窗帘 is one too): the
            # devices named so.
            "窗户",
            "百叶帘",
            "卷帘",
            "雨蓬",
            "雨棚",
            "遮雨棚",
            "遮阳棚",
            "遮阳篷",
            "遮光帘",
            "落地窗",
            "吸顶灯",
            "台灯",
            "落地灯",
            "吊灯",
            "筒灯",
            "射灯",
            "灯带",
            "床头灯",
            "夜灯",
            "小夜灯",
            "镜前灯",
            "壁灯",
            "氛围灯",
            "起夜灯",
            "烧水壶",
            "电水壶",
            "热水壶",
            "电热水壶",
            "电饭煲",
            "电饭锅",
            "油烟机",
            "抽油烟机",
            "排气扇",
            "换气扇",
            "浴霸",
            "饮水机",
            "微波炉",
            "冰箱",
            "咖啡机",
            "投影仪",
            "机顶盒",
            "路由器",
            "晾衣架",
            "电热毯",
            "空气炸锅",
            "洗碗机",
            "热水煲",
        )
    },
    # 的, and a place's inside said with or without it (客厅里头的灯, 卧室里边).
    "DE": dict.fromkeys(
        (
            "的",
            "嘅",
            "那边的",
            *(inside + de for inside in ("里", "里面", "里头", "里边") for de in ("", "的")),
        ),
        "de",
    ),
    "AND": dict.fromkeys(
        ("和", "跟", "与", "及", "以及", "还有", "、", "和那个", "加上", "同"), "and"
    ),
    "SEP": dict.fromkeys(
        (
            ",",
            "。",
            ".",
            "!",
            "?",
            ";",
            "然后",
            "再",
            "并且",
            "同时",
            "接着",
            "之后",
            "随后",
            "顺便",
            "另外",
            "而且",
            "顺便把",
            "再把",
            "完了",
            "并",
            *("最后", "接下来", "紧接着"),  # 先开灯再开空调最后开电视
        ),
        "sep",
    ),
    "BA": dict.fromkeys(("把", "将", "让"), "ba"),
    "ALL": dict.fromkeys(
        ("所有", "所有的", "全部", "全部的", "一切", "每个", "每一个", "每盏", "各个", "整个"),
        "all",
    ),
    "DOU": dict.fromkeys(("都", "全", "全都", "统统", "通通", "都给", "一律", "晒"), "all"),
    "ANY": dict.fromkeys(
        (
            "随便一个",
            "任意一个",
            "随便哪个",
            "任何一个",
            "随便一盏",
            "随便",
            "任意",
            "任选",
            "随便挑",
        ),
        "any",
    ),
    "EXCEPT": dict.fromkeys(("除", "除了", "除去", "除开", "不包括", "除掉", "除咗"), "except"),
    "EXCEPT_END": dict.fromkeys(("以外", "之外", "外", "以外的", "之外的"), "end"),
    # Said after what they take away (卧室除外, 起夜灯留着: those are composed, KEEPING); 不用关
    # and 别关 after a set are negated clauses that compiler/build.py turns into exclusions of
    # that set.
    "EXCEPT_POST": dict.fromkeys(
        (
            "除外",
            "不算",
            "不用管",
            "不要动",
            "别动",
            "不动",
            "的不用",
            "的不要",
            "就不用了",
            "不在内",
        ),
        "post",
    ),
    # The whole home, and the speaker's home said with its owner (我家, 咱家里, 俺家).
    "HOME": dict.fromkeys(
        (
            *("全屋", "全家", "家里", "整个家", "所有房间", "每个房间", "家中", "屋头"),
            *(p + "家" + s for p in ("我", "我们", "咱", "咱们", "俺") for s in ("", "里")),
        ),
        "home",
    ),
    "THIS_ROOM": dict.fromkeys(
        (
            "这个房间",
            "这里",
            "这儿",
            "这间",
            "这屋",
            "本房间",
            "这个屋",
            "这边",
            "呢度",  # Cantonese 这里
            "呢边",
            "呢间房",  # Cantonese 这个房间
            "呢个房",
            "呢间",
            "间房",  # Cantonese 间房好焗: the room one is in
            # The room said as the subject of a complaint (屋子有点冷): the speaker's. So is the
            # room one is in (屋里, 房间里: 把屋里的灯关了 is this room's, not the home's).
            "屋子",
            "屋内",
            "室内",
            "屋里",
            "屋里头",
            "房里",
            "房间里",
        ),
        "this_room",
    ),
    "OTHER": dict.fromkeys(
        (
            "其他房间",
            "其他",
            "其它",
            "别的",
            "其余",
            "其他的",
            "其它的",
            "其余的",
            "剩下的",
            "其它房间",
            "别的房间",
            "其余房间",
            "其他地方",
            "其它地方",
            "其余的房间",
            "其他的房间",
        ),
        "other_rooms",
    ),
    "IF": dict.fromkeys(("如果", "要是", "假如", "假设", "若", "如若", "万一", "当", "一旦"), "if"),
    "THEN": dict.fromkeys(("就", "那就", "则", "就给", "就帮我", "就把"), "then"),
    "CMP": {
        "超过": ">",
        "高于": ">",
        "大于": ">",
        "多于": ">",
        "超出": ">",
        "高过": ">",
        "低于": "<",
        "小于": "<",
        "不到": "<",
        "少于": "<",
        "不足": "<",
        "低过": "<",
        "达到": ">=",
        "到了": ">=",
        "不低于": ">=",
        "不少于": ">=",
        "不高于": "<=",
        "不超过": "<=",
        "以上": ">",
        "以下": "<",
    },
    # Question words: the attribute they imply, or None.
    "QWORD": {
        "多少": None,
        "几度": "temperature",
        "多少度": "temperature",
        "好多度": "temperature",  # Sichuanese 好多 (how many)
        "怎么样": None,
        "咋样": None,  # Northern and Sichuanese 咋 (how)
        "咋个样": None,
        "如何": None,
        "几": None,
        "什么": None,
        "制冷还是制热": "mode",
        "制热还是制冷": "mode",
        "几档": "fan_speed",
        "多高": None,
        "多大": None,
        "高不高": None,
        "多亮": "brightness",
        "有多热": "temperature",
        "多热": "temperature",
        "有多冷": "temperature",
        "多冷": "temperature",
        "报": None,
        "报一报": None,
        "说说": None,
        "播报": None,
        "是咩": None,
        "系咩": None,  # Cantonese 是什么
        "怎样": None,
        "点样": None,  # Cantonese 怎样
        "系点": None,  # Cantonese 是怎样 (状态係點)
        "乜嘢": None,
        "几多": None,
        "几多度": "temperature",
        "设的几": None,
        "什么模式的": "preset",
    },
    # Yes/no questions about a state: (attribute, the value asked about). "on" with False is
    # the 关 sense of the device's main state (关着, 关好了: a lock locked, a cover closed).
    "QSTATE": {
        "开着吗": ("on", True),
        "开了吗": ("on", True),
        "开着没": ("on", True),
        "开着没有": ("on", True),
        "打开了吗": ("on", True),
        "还开着吗": ("on", True),
        "在运行吗": ("on", True),
        "开着的吗": ("on", True),
        "亮着吗": ("on", True),
        "亮着没": ("on", True),
        "在转吗": ("on", True),
        "在转没": ("on", True),
        "在转不转": ("on", True),
        "在工作吗": ("on", True),
        "在吹吗": ("on", True),
        "着咗未": ("on", True),
        "着咗未呀": ("on", True),
        "着紧未": ("on", True),
        "开咗未": ("on", True),
        "开咗吗": ("on", True),
        "开咗没": ("on", True),
        "开着未": ("on", True),
        "关了吗": ("on", False),
        "关着吗": ("on", False),
        "关掉了吗": ("on", False),
        "关好了吗": ("on", False),
        "关好了没": ("on", False),
        "关好没有": ("on", False),
        "闩咗未": ("on", False),
        "闩咗吗": ("on", False),
        "关咗未": ("on", False),
        "关咗吗": ("on", False),
        "熄咗未": ("on", False),
        "熄咗吗": ("on", False),
        "锁着吗": ("locked", True),
        "上了没": ("locked", True),
        "上了吗": ("locked", True),
        "锁着没": ("locked", True),
        "锁咗吗": ("locked", True),
        "静音了吗": ("muted", True),
        "静音了没": ("muted", True),
        "是不是静音": ("muted", True),
        "是不是静音了": ("muted", True),
        "静音着吗": ("muted", True),
        "在播放吗": ("playing", True),
        "在放歌吗": ("playing", True),
        "在放音乐吗": ("playing", True),
        "在唱歌吗": ("playing", True),
        "在放吗": ("playing", True),
        "在播吗": ("playing", True),
        "是不是在放": ("playing", True),
        # Capabilities of revision 3 (issue 20).
        **dict.fromkeys(
            ("在扫吗", "在扫地吗", "在打扫吗", "是不是在扫地", "在扫没", "扫地了吗"),
            ("status", "cleaning"),
        ),
        **dict.fromkeys(("在充电吗", "回去充电了吗", "回充了吗"), ("status", "docked")),
        **dict.fromkeys(
            ("在洗吗", "在洗衣服吗", "在运行着吗", "在烘吗", "在烘干吗"), ("status", "running")
        ),
        **dict.fromkeys(
            ("在摇头吗", "摇头了吗", "是不是在摇头", "在摆头吗", "摇着头吗"),
            ("oscillating", True),
        ),
    },
    # Said after a verb to ask whether it happened: 上锁了吗, 开了没, 是打开的吗.
    "ASKED": dict.fromkeys(
        (
            "了吗",
            "了没",
            "了没有",
            "没有",
            "没",
            "好了吗",
            "好了没",
            "好没有",
            "的吗",
            "咗未",
            "咗吗",
            "咗",  # 没有上锁咗: after a state, Cantonese 了
            "未",
            "没得",  # Sichuanese 没有 (开起没得, 关了没得)
            "了没得",
        ),
        "asked",
    ),
    # A question over a set (CONTRACTS.md §1): which, how many, whether any.
    "QSET": {
        "哪些": "which",
        "哪几个": "which",
        "哪几盏": "which",
        "哪几台": "which",
        "有哪些": "which",
        "边啲": "which",
        # 哪扇门 / 哪一盏灯 / 哪道窗 / Cantonese 边扇 (边 is 哪; Hong Kong writes 道 as 度):
        # which, with the classifier of what is asked about.
        **{
            which + one + classifier: "which"
            for which in ("哪", "边")
            for classifier in (*_SET_CLASSIFIERS, "度")
            for one in ("", "一")
        },
        "哪一些": "which",
        "哪几道": "which",
        # 几盏 / 有多少个 / Cantonese 几多把: how many, with the classifier (not 度: 几度 asks
        # the temperature).
        **{
            has + many + classifier: "count"
            for has in ("", "有")
            for many in ("几", "多少", "几多")
            for classifier in _SET_CLASSIFIERS
        },
        "有多少": "count",
        "有几多": "count",
        "有没有": "any",
        "还有没有": "any",
        "有冇": "any",
        "有": "any",
        "有无": "any",
        "有任何": "any",
        "任何": "any",
        "有没有任何": "any",
        "是否有": "any",
    },
    # A state said as a fact, for set questions (哪些灯开着): (attribute, value).
    "STATE": {
        "开紧": ("on", True),  # Cantonese 電視仲開緊: is on (紧 after 关/锁 shuts tight)
        "是开着的": ("on", True),
        "还开着": ("on", True),
        "没关": ("on", True),
        "没关的": ("on", True),
        "没开": ("on", False),
        "锁上了": ("locked", True),
        "在放": ("playing", True),
        "在播放": ("playing", True),
        "在放歌": ("playing", True),
        "在放音乐": ("playing", True),
        "在播": ("playing", True),
        "在唱歌": ("playing", True),
    },
    "QVERB": dict.fromkeys(("查询", "告诉我", "问一下", "报告", "查"), "query"),
    "IT": {
        "它": "it",
        "佢": "it",
        "他": "it",
        "她": "it",
        "刚才那个": "it",
        "刚才的": "it",
        "刚刚那个": "it",
        "刚才那台": "it",
        "它们": "they",
        "他们": "they",
        "这些": "they",
        "那些": "they",
        "刚才那些": "they",
    },
    "MEDIA": {
        "静音": "mute",
        "取消静音": "unmute",
        "开始播放": "play",
        "开始放": "play",
        "解除静音": "unmute",
        "关闭静音": "unmute",
        "关掉静音": "unmute",
        "恢复声音": "unmute",
        "静音取消": "unmute",
        "静音取消掉": "unmute",
        "静音关掉": "unmute",
        "静音关闭": "unmute",
        "取消掉静音": "unmute",
        "播放": "play",
        "继续播放": "play",
        "继续": "play",
        "放歌": "play",
        "放音乐": "play",
        "放点歌": "play",
        "放首歌": "play",
        "放点音乐": "play",
        "来点音乐": "play",
        "来首歌": "play",
        "播放音乐": "play",
        # Listening is the player playing: 我要听歌, 听点音乐.
        "听歌": "play",
        "听音乐": "play",
        "听点音乐": "play",
        "听点歌": "play",
        "暂停": "pause",
        "播放暂停": "pause",  # playback paused
        "恢复": "play",  # resumed: 恢复大厅的节目
        "声音恢复": "unmute",
        # 下一首 / 上一个歌曲 / 下一集: a step along the tracks, with its classifier and
        # optionally what is played (个 only before it).
        **{
            step + one + unit + played: command
            for step, command in (("下", "next_track"), ("上", "previous_track"))
            for one in ("一", "")
            for unit in ("首", "曲", "集", "台", "个")
            for played in PLAYED
            if played != unit and (one or unit != "个")
        },
        "暂停播放": "pause",
        "切歌": "next_track",
        "跳过": "next_track",
        "跳过这首": "next_track",
        "跳过这集": "next_track",
        "换一首": "next_track",
        "下首": "next_track",
        "上首": "previous_track",
        "停": "stop",
        "停止": "stop",
        "停下": "stop",
        "停住": "stop",
        "别动了": "stop",
        "停下来": "stop",
        "停一停": "stop",
        "停一下": "stop",
        # An appliance stopped (洗衣机停止运转): its cycle, as 停止 is.
        "停止运转": "stop",
        "停止运行": "stop",
        "停止工作": "stop",
        "换台": "next_track",
        "换个台": "next_track",
        "换首歌": "next_track",
        "换一首歌": "next_track",
        "恢复播放": "play",
        "接着放": "play",
        "继续放": "play",
        "接着播": "play",
        "继续播": "play",
        "接着播放": "play",
        "放个歌": "play",
        "放歌听": "play",
        "别放了": "pause",
        "不要放了": "pause",
        "停止播放": "pause",
        "别播了": "pause",
        "别静音了": "unmute",
        "不要静音了": "unmute",
        "不静音": "unmute",
        "打开声音": "unmute",
        "声音打开": "unmute",
        "声音关了": "mute",
        "声音关掉": "mute",
        "关掉声音": "mute",
        "关声音": "mute",
        "静音一下": "mute",
        # Verbs of the capabilities of revision 3 (issue 20), taking no value.
        **dict.fromkeys(
            (
                "左右摆",
                "左右摇",
                "左右摆动",
                "开始摇头",
                "摇起来",
                "打开摇头",
                "开启摇头",
                "开摇头",
                "转头",
            ),
            "oscillate_on",
        ),
        **dict.fromkeys(
            (
                "别摇了",
                "不要摇了",
                "停止摇头",
                "关闭摇头",
                "关掉摇头",
                "关摇头",
                "摇头关掉",
                "摇头关了",
                "取消摇头",
                "别摆了",
                "停止摆头",
                "固定",
                "固定住",
                "定住",
                "别转了",
            ),
            "oscillate_off",
        ),
        # 别摇头了 / 不要扫风: a swing said not to happen is stopped (别 alone would be
        # "do nothing", grammar NEG).
        **{
            neg + stem + end: "oscillate_off"
            for stem in _SWINGS
            for neg in ("别", "不要", "不")
            for end in ("", "了")
        },
        **dict.fromkeys(
            (
                "开始扫地",
                "扫地",
                "扫一下",
                "扫一扫",
                "扫扫地",
                "扫下地",
                "打扫",
                "打扫一下",
                "开始打扫",
                "去扫地",
                "清扫",
                "开始清扫",
                "清洁",
                "开始清洁",
                "吸尘",
                "开始吸尘",
                "拖地",
                "开始拖地",
                "拖一下地",
                "扫拖",
                "扫一下地",
                "打扫卫生",
            ),
            "clean",
        ),
        **dict.fromkeys(
            ("暂停扫地", "暂停打扫", "别扫了", "停止扫地", "停止打扫", "不要扫了", "先别扫了"),
            "pause_cleaning",
        ),
        **dict.fromkeys(
            (
                "回充",
                "去充电",
                "回家充电",
                # Cantonese 返去 / 返回 said to the vacuum: go back (to its dock).
                "返回",
                "返去",
                "回去充电吧",
                "充电去",
            ),
            "return_to_base",
        ),
        **dict.fromkeys(("开始洗", "洗一下", "开洗", "开始烘", "烘一下"), "run_cycle"),
        **dict.fromkeys(("开始", "开始工作", "开工", "干活", "开始运行", "工作起来"), "start"),
        **{
            verb + track: action
            for verb in ("切到", "跳到", "回到", "切换到", "换到", "放", "播放", "播", "来")
            for track, action in (
                ("下一首", "next_track"),
                ("上一首", "previous_track"),
                ("下一曲", "next_track"),
                ("上一曲", "previous_track"),
                ("下一首歌", "next_track"),
                ("上一首歌", "previous_track"),
                ("下一台", "next_track"),
                ("上一台", "previous_track"),
                ("下一集", "next_track"),
                ("上一集", "previous_track"),
            )
        },
    },
    # A swing said as a feature, the thing switched (摇头 / 把风扇的摇头打开 / 关闭扫风 /
    # 摇头功能关掉): on alone or with 打开, its undoing (build._UNDO) with 关闭/关掉/停掉.
    # 扫风 is an air conditioner's swing (a climate's swing_mode is imported as oscillation).
    "FEATURE": {stem + suffix: "oscillate_on" for stem in _SWINGS for suffix in ("", "功能")},
    "REPEAT": dict.fromkeys(
        (
            "再来一次",
            "再来一遍",
            "重复一次",
            "重复一遍",
            "再一次",
            "再来",
            "照刚才的再来一次",
            "一样的",
            "同样的",
            "重复",
        ),
        "repeat",
    ),
    "CONFIRM": dict.fromkeys(
        (
            "确认",
            "确定",
            "是的",
            "好的",
            "对",
            "对的",
            "好",
            "可以",
            "没问题",
            "行",
            "确认执行",
            "确定执行",
            "嗯嗯",
            "没错",
            "对对",
        ),
        "confirm",
    ),
    "CANCEL": dict.fromkeys(
        (
            "算了",
            "取消",
            "不用了",
            "不要了",
            "不是",
            "不必了",
            "还是算了",
            "别弄了",
            "取消吧",
            "解除",
            "没关系",
            # Dismissals: nothing more is wanted (Cantonese 无事, 算数).
            "没事",
            "没事儿",
            "无事",
            "算数",
            "再见",
            "闭嘴",
            "退下",
        ),
        "cancel",
    ),
    # Negation before a verb (别开灯, 灯不用开了); alone (不用) compiler/lexicon.py makes it a
    # cancel: nothing follows to negate.
    "NEG": dict.fromkeys(
        (
            "别",
            "不",
            "不要",
            "不用",
            "甭",
            "不必",
            "别再",
            "不要再",
            "不用再",
            "先别",
            "暂时别",
            "千万别",
            "不需要",
            "无需",
            "唔好",
            "唔使",
            "别给我",
            "莫",  # Sichuanese, Hunanese: 莫开灯
            "莫要",
            # The speaker not wanting it (我不想开灯, 俺不要关空调), as SPEAKERS want it.
            *(who + neg for who in SPEAKERS for neg in ("不想", "不要", "不用")),
        ),
        "neg",
    ),
    # Delayed commands: the clock or delay itself is scanned by compiler/numbers.py.
    "TIMER": dict.fromkeys(("定时", "定时任务", "预约", "计划", "闹钟", "倒计时"), "timer"),
    "HOWLONG": dict.fromkeys(
        (
            "还有多久",
            "还要多久",
            "还有多长时间",
            "多久以后",
            "多久后",
            "几点",
            "还剩多久",
            "仲有几耐",
        ),
        "howlong",
    ),
    # Preferences (seed 003): 记住我喜欢26度, 调到我喜欢的温度, 按我的习惯开灯.
    "REMEMBER": dict.fromkeys(("记住", "记下", "记一下", "帮我记住", "记得", "以后都"), "remember"),
    "PREF": dict.fromkeys(
        ("我喜欢", "我习惯", "我一般", "我平时", "我通常", "我看", "我用", "我睡觉", "我爱"), "pref"
    ),
    "PREFERRED": dict.fromkeys(
        ("我喜欢的", "我习惯的", "我常用的", "我平时的", "我平常的", "我设定的"), "preferred"
    ),
    "HABIT": dict.fromkeys(
        (
            "按我的习惯",
            "按照我的习惯",
            "照我的习惯",
            "按我习惯",
            "按老样子",
            "老样子",
            "跟平时一样",
            "和平时一样",
            "照旧",
        ),
        "habit",
    ),
    # 把场景切换到会客模式: the word for a scene, before its name.
    "SCENE_WORD": dict.fromkeys(("场景", "情景", "模式场景", "情景模式"), "scene"),
    # Not a home command at all: the engine answers unknown, never "没有找到…". Home names
    # override these (a scene may be called 晚安).
    "NOT_HOME": dict.fromkeys(
        (
            "天气",
            "天气预报",
            "几点了",
            "现在几点",
            "而家几点",  # Cantonese 现在几点
            "宜家几点",
            "几点钟",
            "星期几",
            "礼拜几",
            "几号",
            "日期",
            *GREETINGS,
            "笑话",
            "讲个笑话",
            "讲故事",
            "新闻",
            "股票",
            "你是谁",
            "你叫什么",
            "聊天",
            "聊聊天",
            "下雨",
            "会下雨吗",
            "翻译",
        ),
        "not_home",
    ),
    "ORDINAL": {
        **{f"第{w}个": n for n, w in enumerate("一二三四五六七八九", 1)},
        **{f"第{w}": n for n, w in enumerate("一二三四五六七八九", 1)},
        **{f"第{n}个": n for n in range(1, 10)},
        "前面那个": 1,
        "前一个": 1,
        "后面那个": 2,
        "后一个": 2,
        "最后一个": -1,
    },
}

# --- Morphemes ------------------------------------------------------------------------
# grammar/morphology.py composes the forms people say from these, once per process: a
# verb stem, a complement and an aspect (关 + 掉 + 了), a degree and a quality (有点 + 闷),
# a change verb and an adjective (变 + 小). A table above never lists a composed form
# (tests/test_morphology.py).

# Said after a verb, they change nothing it does: aspect (了, 着, Cantonese 咗), softeners
# (一下, Sichuanese 一哈), Cantonese 埋 (too, 闩埋) and 返 (back, 开返).
ASPECTS = ("了", "着", "咗", "一下", "一哈", "下", "哈", "一下子", "埋", "返")

# Verbs that switch a device on by themselves, and those that switch it off.
ON_STEMS = ("开", "打开", "开启", "启动", "启用", "点亮", "运行", "激活")
OFF_STEMS = ("关", "关闭", "熄", "熄灭", "灭", "闩", "停掉", "闭")  # Northeastern 把灯闭了
# Direction and result complements that keep a switching verb's sense (开起来, 关掉).
ON_COMPLEMENTS = ("起", "起来", "来", "上", "开", "着")
OFF_COMPLEMENTS = ("掉", "上", "好", "埋", "住", "起来", "起", "脱")  # Wu 关脱
# 锁 switches a lock off only with a complement or an aspect: alone it is the type word.
LOCK_STEM = "锁"
# A one-syllable switching verb and 机 (开机, 关机, Cantonese 闩机): the device's power, as
# the verb alone.
POWER_OBJECTS = ("机",)
# A verb of doing or 来 and 个 before a value set it (来个二十六度, 搞个50, 弄个制冷); 整个 is
# that too before a value (空调给我整个二十六度), and "whole" elsewhere (整个客厅).
SETTING_BY_ONE = ("来", "弄", "搞", "整")
# A device that moves or blows set going (风扇转起来, 空调吹起来): switched on.
MOVING_STEMS = ("转", "吹", "动")
MOVING_STARTED = ("起来",)
# Verbs of doing (整, 搞, 弄 and the hand's verbs) take a result that says which way: 整开,
# 搞亮, 弄灭, 拧开, 拉开, 摁灭 (a switch pressed). Not 按: 按着 is "according to".
DOING_VERBS = ("整", "搞", "弄", "拧", "扭", "拉", "打", "摁", "撩")  # 撩开: lift (a curtain) open
# Not 好: 弄好, 整好 say "fix", not "off" (锁好 is the lock stem's complement).
ON_RESULTS = ("开", "亮", "着")
OFF_RESULTS = ("灭", "熄", "掉", "关")
# A verb of doing with 停 (整停, 搞停, 弄停) is 停: what the device's stop is (a curtain stops, a
# wash stops, a vacuum or a player pauses), as 停下 is; not 关 (a moving curtain told to stop is
# not closed).
STOP_RESULTS = ("停",)

# Steps of a change, counted (调高一档, 大两格, 低一个档): how far a relative change moves.
NOTCH_COUNTS = {"一": 1, "一个": 1, "两": 2, "两个": 2, "二": 2, "三": 3, "三个": 3}
NOTCH_UNITS = ("档", "挡", "级", "格")

# An extreme said of a gear (开到最大档, 风速调到最低挡) is the fan speed's.
GEARS = ("档", "挡")

# Keeping a device out of what the rest of the utterance does, said after it (起夜灯留着, 客厅灯
# 开着就行) or before it (只留客厅的灯, 保留卧室灯): a verb of keeping with or without an adverb
# first and a tail; 留 alone only after an adverb (留一盏灯 says how many, not which), a
# verb of staying on only with a tail (开着 alone is the command).
KEEPING = ("留着", "留下", "保留", "留")
KEEPING_LEADS = ("", "先", "只", "就", "只是")
KEPT_TAILS = ("", "就行", "就好", "就可以", "吧", "就行了")
STAYING = ("开着", "亮着")

# A question word said after a verb of being or of setting (是多少, 设的多少度, 定的几度, 显示
# 什么模式, Cantonese 系乜嘢): the same question, asked of what the device is set to or shows.
# The leads are a verb of being (是, Cantonese 系) or showing said alone, or a verb of setting or
# showing with its mark (设的, 定咗, 调的是, 显示了): composed (grammar/morphology.py asked_leads).
ASKED_BEING = ("是", "系", "显示")
ASKED_VERBS = ("设", "设定", "设置", "定", "调", "开", "显示")
ASKED_MARKS = ("的", "的是", "了", "咗")
ASKED_BASES = (
    *("多少", "多少度", "几度", "几多", "几多度", "什么", "乜嘢", "制冷还是制热", "制热还是制冷"),
)
# What is asked by a word for "what" and what it names (什么模式, 啥颜色, Cantonese 咩状态, 乜嘢
# 档): that attribute; composed, and said after a lead too (显示什么模式).
WHAT_WORDS = ("什么", "啥", "咩", "乜嘢")
WHAT_ASKED = {"模式": "mode", "状态": "state", "颜色": "color", "档": "fan_speed"}
# What a device is doing, asked (在干嘛, 正在做什么, 在搞啥, Cantonese 喺度做乜): its state. Only
# with 在 (干嘛 alone also asks "why": 干嘛开着灯).
DOING_LEADS = ("在", "正在", "喺度", "喺")
DOING_ASKED_VERBS = ("干", "做", "搞", "弄", "忙")
DOING_WHAT = ("嘛", "什么", "啥", "啥子", "么子", "咩", "乜", "乜嘢")
# Said before it, the question is the assistant's (你在干嘛, 您在忙什么): not the home's
# (compiler/lexicon.py reads them; each is a filler).
ADDRESSEES = ("你", "您", "你们", "你哋", "侬")

# A verb and its object said as one word (静音, 摇头) part around a softener or a classifier, or
# around the verb said again (静个音, 摇一下头, 摇一摇头, 摇摇头): the same command.
SEPARABLE = ("静音", "摇头", "摆头")
SEPARATED_BY = ("个", "一下", "下", "一哈", "哈")

# A demonstrative and a classifier point at a device (这个, 那台, 这盏, Cantonese 呢个, 𠮶部, as
# OpenCC's hk2s writes 嗰): it.
DEMONSTRATIVES = ("这", "那", "呢", "𠮶")
POINTING_CLASSIFIERS = ("个", "台", "盏", "部", "只", "扇")

# Verbs of looking (看, 瞅, 瞧, 查, Cantonese 睇), said twice (瞅瞅, 看一看) or with a softener
# (看一下, 瞧一眼), before a question: asking it.
LOOK_STEMS = ("看", "瞅", "瞧", "查", "睇")
LOOK_SOFTENERS = ("一下", "一眼", "下", "一哈")
# A state verb, a negation and the verb again ask whether the state holds (关没关, 锁没锁,
# Cantonese 开冇开).
NOT_HAPPENED = ("没", "冇")

# A verb and the word that brings its value (调到, 设成, 改为).
SET_STEMS = (
    "调",
    "设",
    "设置",
    "设定",
    "调整",
    "调节",
    "变更",
    "调教",  # Cantonese 调 (adjust)
    "改",
    "换",
    "切",
    "切换",
    "转换",  # 转换到晚安模式
    "变",
    "定",
    "放",
    "开",
    "打开",
    "拉开",
    "拉",
    "关",
    "打",
    "搞",
    "弄",
    "整",
    "拧",
    "校",
    "保持",
    "维持",
    "转",
)
SET_TO = ("到", "成", "为", "至", "在")

# Verbs that change an attribute the way the adjective after them says (调亮, 变小, 拧大);
# 开 and 关 only by size or strength (开大, 关小: 开冷 is no change of anything).
CHANGE_VERBS = ("调", "变", "弄", "整", "搞", "拧", "扭", "转", "校", "打")  # Cantonese 打低
# The way said before the verb (往上调, 往大了拧, 朝下调一调): the change of the verb with that
# size after it (调大). A side is a one-character size (ADJ) or 上/下; 了 may follow it; the
# verb of adjusting (调) may be said twice, softening (往下调调, 往上调一调). Each side, link and
# verb is another form (~200 in all): the verbs are those people turn a knob with.
# A loudness said around its 一点 (小点声, 调大一点声): these verbs and bits of 一点 only.
LOUDNESS_VERBS = ("调", "整", "弄", "开", "搞")
# Left with no sound (整没声, 弄没声音): muted, after a verb of doing.
SILENT = ("没声", "没声音")
LOUDNESS_BITS = ("点", "一点", "点儿", "一点儿", "些", "啲")
TOWARD = ("往", "朝")
TOWARD_SIDES = {"上": (None, 1, 0), "下": (None, -1, 0)}
TOWARD_VERBS = ("调", "拧", "转", "调调", "调一调")
SIZE_ADJECTIVES = {
    "开": ("大", "小", "高", "低", "亮", "暗", "大声", "小声", "强", "弱"),
    "关": ("小", "低"),
}
# Sizes that also call a light (大灯 the main light, 小灯 a small lamp): said between a
# switching verb and a light's type word (开小灯, 关小灯, 开大灯) they are part of its name, not a
# change (开大窗帘 still opens the curtain wide).
SIZE_NAMES = ("大", "小")
# Said last in a change with no attribute (开大, 调小, 校细, 加大, 最强, 开满), these say more or
# less of what the device does, not a bigger or smaller number: an air conditioner that cools
# is made stronger by a lower set point (空调开大一点 in summer is colder, not 27 °C).
STRENGTHS = ("大", "小", "细", "强", "弱", "满")

# Complaints about the room (seed 003: 环境抱怨 → 假设明显执行器) are degree + quality:
# 太热, 有点闷, 贼冷, 冻死了, 闷得很. Degree words said before a quality:
DEGREES = (
    *("太", "好", "有点", "很", "真", "特别", "超", "贼", "巨", "忒", "老", "蛮", "挺", "非常"),
    *("这么", "咋这么", "怎么这么"),  # 咋这么黑: a complaint said as wonder
    *("嗷嗷", "可"),  # Northeastern: 屋里嗷嗷冷, 可热了
    *("有些", "有一点", "有一些", "太过", "十分", "相当", "实在", "怪"),  # 怪冷的 (Northeastern)
    *("好鬼", "劲", "有啲"),  # Cantonese: 好鬼热, 劲冻, 有啲焗
    "有够",  # Taiwanese 有夠熱
)
# Who feels the cold or the heat, said before the complaint (我有点冷, 我好热, 我冻死了); only
# of the qualities a person feels.
FEELERS = ("我",)
FELT = ("hot", "cold")
# Endings that say the degree after the quality.
DEGREE_ENDINGS = (
    *("死了", "死", "得很", "得慌", "得要命", "得要死", "得不行", "得受不了", "死个人了", "死人了"),
    *("死我了", "死我啦"),  # 冷死我了
    *("坏了", "爆了"),  # 热坏了, 冻爆了
    *("到死", "到爆", "到震", "到不行", "得不得了"),  # Cantonese 热到死, 冻到震; 热到不行
)
# The qualities, by the complaint they make (COMPLAINT_REMEDIES); those in QUALITIES_ALONE
# are a complaint with no degree too (闷, 刺眼). "high" and "low" are a quality of the
# subject said before them (声音太大, 温度太低: COMPLAINT_SUBJECTS).
QUALITIES: dict[str, tuple[str, ...]] = {
    "hot": ("热", "闷", "闷热", "燥热", "焗"),  # Cantonese 焗 (stuffy): 好焗
    "cold": ("冷", "冻"),
    "dark": ("暗", "黑"),
    "bright": ("亮", "刺眼", "晃眼", "光"),  # Cantonese 光 (bright): 太光
    "loud": ("吵", "嘈", "大声", "响"),
    "dry": ("干", "干燥", "燥"),
    "damp": ("潮", "潮湿", "湿"),
    "high": ("大", "高"),
    "low": ("小", "低"),
}
QUALITIES_ALONE = ("闷", "闷热", "刺眼", "晃眼")
# Said between a quality and itself to ask it (热不热, Cantonese 热唔热).
NOT_SAID = ("不", "唔")
# Complaints said as words of their own.
COMPLAINT_WORDS = {
    **dict.fromkeys(("看不清", "看不清楚", "看不见"), "dark"),
    "回南天": "damp",
}
# An attribute said as the subject of a complaint (声音太大): the complaint its "high" and
# "low" make, and the complaints it may be the subject of.
COMPLAINT_SUBJECTS: dict[str, tuple[str | None, str | None]] = {
    "volume": ("loud", None),
    "temperature": ("hot", "cold"),
    "target_temperature": ("hot", "cold"),
    "brightness": ("bright", "dark"),
    "illuminance": ("bright", "dark"),
    "humidity": ("damp", "dry"),
}

# Whether an appliance has finished what it does (扫完没有, 洗好了吗, 烘完咗未): an activity
# verb, a result and the asking word; the answer is the appliance's status.
PROGRESS_VERBS = ("扫", "拖", "洗", "烘", "烘干", "打扫", "清扫")
PROGRESS_RESULTS = ("完", "好")
PROGRESS_ASKED = (
    *("了吗", "了没", "了没有", "没有", "没", "咗未", "咗没有", "未", "了冇", "咗冇"),
    *("没得", "了没得"),  # Sichuanese 没有
)
# How long until it is done, said before or after the verb and its result (还有多久洗完,
# 还要多久才能扫好, 烘干还要多久): the time left, as 还要多久 alone asks.
HOW_LONG = ("还有多久", "还要多久", "还有多长时间", "要多久", "多久", "还剩多久", "仲有几耐")
HOW_LONG_LINKS = ("", "能", "才能")

# A state said of a device (有窗帘是打开中的吗, 哪些门是锁了的, 窗户是关闭紧吗): a state verb,
# an aspect (中, 着, Cantonese 紧; 了 and 咗 only before 的, as 开了 alone is a command) and 的.
# 紧 follows two-syllable verbs only: 关紧, 锁紧 are commands (shut it tight).
STATE_VERBS: dict[tuple[str, bool], tuple[str, ...]] = {
    ("on", True): ("打开", "开启", "开", "亮"),
    ("on", False): ("关闭", "关", "关上", "闩"),
    ("locked", True): ("上锁", "锁上", "锁"),
}
STATE_ASPECTS = ("中", "着", "紧", "中着", "住", "起")  # Cantonese 开住, Sichuanese 亮起: being on
STATE_PERFECT = ("了", "咗")
# Whether it is locked, asked by a verb of locking and an asking word (锁了吗, 锁好了没, 上锁了没有,
# 锁咗未): composed for each, as the lock's type word may take the verb's 锁 (门锁了没有 is 门 +
# 锁了没有, not 门锁 + 了没有).
LOCKED_VERBS = ("锁", "锁上", "锁好", "上锁")
# Not being locked, said with no aspect (没上锁, 没有锁的).
STATE_UNLOCKED = ("没上锁", "没有上锁", "没锁", "没有锁", "未上锁", "解锁", "无上锁", "无锁")

# Whom a request is for, after a verb of helping (帮奶奶把电视打开, 给宝宝开一下灯), and who
# passes a request on before 说 (妈妈说把灯关了): said around a command, they change nothing.
HELPING = ("帮", "给", "替")
HELPED = (
    *("奶奶", "爷爷", "妈妈", "爸爸", "姥姥", "姥爷", "外婆", "外公", "宝宝", "孩子"),
    *("我们", "咱", "咱们", "大家", "老人", "阿嫲", "阿妈", "阿爸"),
    *("俺", "俺们", "老子", "人家", "阿拉", "我哋"),  # the speaker, in dialects and registers
)
HELPED_FOR = tuple(verb + who for verb in HELPING for who in HELPED)
# Whom a speaker calls first, before what they ask (妈妈，我要开灯; 老伴儿把电视给关了): said to
# them, heard by the home, it asks nothing of its own. Only first and before a request or a
# verb: before 的 or a device (妈妈的灯) it says whose, a word nothing here explains. A word
# of their own (TABLES["CALLED"]), so that none is cut in two (外婆 is not 外 + 婆).
CALLED = (
    *("妈妈", "妈", "爸爸", "爸", "奶奶", "爷爷", "姥姥", "姥爷", "外婆", "外公", "阿嫲"),
    *("老伴", "老婆", "老公", "媳妇", "闺女", "女儿", "儿子", "宝贝", "宝宝", "亲爱的", "阿姨"),
)
PASSED_ON = tuple(who + "说" for who in HELPED)

# Wrappers around a command that never change its meaning, added to the fillers: requests
# (能, 可否), tags after it (行不, 好不), vocatives (我说), sentence-final particles.
WRAPPERS = (
    "能",
    "能否",
    "可否",
    "可唔可以",
    "得唔得",
    "行不",
    "好不",
    "中不中",
    "成不",
    *("可好", "成吗", "中不", "要得不"),  # tags: 灯关了可好, 把空调开一下要得不
    *("好伐", "行伐", "可以伐"),  # Wu tags (灯打开好伐): 伐 is 不 asked
    "帮我个忙",
    "我说",
    "我讲",
    # Who is to act, said first (我们开灯吧, 咱们把灯关了, 你们把空调打开): the home does it. As
    # words they also keep 们 from being heard as 门 (a door).
    *("我们", "咱们", "咱", "俺们", "你们"),
    "那个谁",  # 那个谁，帮我把灯开开: calling whoever is there
    "叫",  # 叫扫地机器人打扫客厅: ask it to
    "让",
    "用",  # 用扫地机器人打扫客厅: the means is the device said
    "去",  # 扫地机器人去打扫客厅: go and do it
    "撒",
    "噻",
    "喔",
    "哇",
    "呐",
    "噢",
    "昂",
    "一哈",
    # Softeners of a change (稍微调小一点): the 一点 says it already.
    "稍微",
    "稍稍",
    "略微",
    # Regional requests and particles: 劳烦/烦请 (please), Taiwanese 耶, Cantonese 仲 (还),
    # and the 儿 of northern and Sichuanese speech after a noun (灯儿), which adds no meaning.
    "劳烦",
    "烦请",
    "耶",
    "仲",
    "儿",
    "您看",  # 您看能不能…: asking the listener's view is asking them to act
    "你看",
    *HELPED_FOR,
    *PASSED_ON,
)

# Verbs that go somewhere along the tracks, said before a step (转下一首, 返上一首, 回到上一首);
# 切到, 转到 and the other set verbs (SET) go there too.
TABLES["STEPV"] = dict.fromkeys(("转", "返", "返到", "回到", "切", "跳回"), "step")

# Playing this track again (再播放这首, 重播呢个): it starts over, as a step back does.
REPLAY_VERBS = ("再播放", "再放", "再播", "重新播放", "重播")
THIS_TRACK = ("这首", "呢首", "这个", "呢个")

# Undoing a pause plays again (取消暂停, 解除暂停播放).
UNDO_VERBS = ("取消", "解除")
PAUSE_WORDS = ("暂停", "暂停播放")

# Going back to the dock: a verb of return and the dock (返回充电座, 回基站, 返去底座).
RETURN_VERBS = ("回", "回到", "返回", "返去", "返到", "回去", "返")
DOCKS = ("充电座", "充电桩", "基座", "基站", "底座", "座充", "基地", "充电")
# The wrappers that ask someone to act: an on/off verb said last before 吗 is a polite command
# when one of them (or 把/将 before the target) is said, else it asks whether the state holds
# (全部的电源关上吗 asks; 能把电源关上吗 acts).
REQUESTS = frozenset(
    {
        *("请", "请你", "麻烦", "麻烦你", "麻烦您", "麻烦晒", "劳驾", "帮我", "帮忙", "帮", "帮手"),
        *("帮个忙", "给我", "替我", "一下", "一下子", "一哈", "好吗", "行吗", "可以吗"),
        *("好不好", "行不行", "能不能", "能否", "可不可以", "能", "可否", "可唔可以"),
        *("得唔得", "行不", "好不", "中不中", "成不", "可以", "唔该", "叫", "让"),
        *("劳烦", "烦请", "可好", "成吗", "中不", "要得不", "帮我个忙", "好伐", "行伐"),
        "可以伐",
        *HELPED_FOR,
    }
)

# Verbs whose object is implied name its device type when no target is said (开锁 → the
# lock, 扫地 → the vacuum): the type and the type word said for it.
IMPLIED_OBJECTS: dict[str, tuple[str, str]] = {
    **dict.fromkeys(("开锁", "解锁", "上锁", "反锁"), ("Lock", "锁")),
    # 关火 implies gas: the valve named 燃气阀 when the home has one (a water valve beside it
    # is not meant), else any valve, asked among.
    **dict.fromkeys(("关火", "关气", "关煤气", "关燃气"), ("Valve", "燃气阀")),
}
# The same for a verb of the lock stem (锁上, 锁好, 锁一下) and for what a vacuum does.
IMPLIED_BY_STEM: dict[str, tuple[str, str]] = {LOCK_STEM: ("Lock", "锁")}
IMPLIED_BY_ACTION: dict[str, tuple[str, str]] = dict.fromkeys(
    ("clean", "pause_cleaning", "return_to_base"), ("Vacuum", "扫地机器人")
)

# What each complaint asks of a device: the types that are its obvious actuator, and the
# step to take on one that is already on (attribute, direction); None: being on is all.
COMPLAINT_REMEDIES: dict[str, tuple[tuple[str, ...], tuple[str, int] | None]] = {
    "hot": (("AirConditioner",), ("target_temperature", -1)),
    "cold": (("Heater", "AirConditioner"), ("target_temperature", 1)),
    "dark": (("Light",), ("brightness", 1)),
    "bright": (("Light",), ("brightness", -1)),
    "loud": (("Television", "NetworkAudio"), ("volume", -1)),
    "dry": (("Humidifier",), None),
    "damp": (("Dehumidifier",), None),
}
# What a climate device is switched to for a complaint (an air conditioner warms only in its
# heat mode, so one that cannot heat is no actuator of cold).
COMPLAINT_MODES = {"hot": "cool", "cold": "heat"}
# The second choice, when the place has no actuator of the first: its types and its step.
COMPLAINT_SECOND: dict[str, tuple[tuple[str, ...], tuple[str, int] | None]] = {
    "hot": (("Fan",), ("fan_speed", 1)),
}
# Complaints whose actuator must already be on (a dimmer, a quieter): turning one on is no
# remedy for too much light or noise.
COMPLAINTS_ON_ONLY = frozenset({"bright", "loud"})
# Complaints whose cause is the actuator in this state: the noise is what plays, the glare
# what is lit. Of several actuators in the place, those in it are meant (the planner reads
# them); none in it, the ones on.
COMPLAINT_CAUSES = {"loud": "playing", "bright": "on"}

# 换个风格 while a background scene runs (seed 004): stop it and ask which scene is next.
TABLES["CHANGE"] = dict.fromkeys(
    (
        "换个风格",
        "换一个风格",
        "换种风格",
        "换一种风格",
        "换个场景",
        "换一个场景",
        "换个氛围",
        "换一个氛围",
        "换个模式",
        "换一个模式",
        "换一个",
        "换个",
        "换一种",
    ),
    "change",
)

# Verb-object words whose verb is also a type word (锁门: 锁 is 门锁 too): lexed as the
# tokens they stand for, each (kind, canonical text, payload, characters said).
COMPOUNDS: dict[str, tuple[tuple[str, str, Any, int], ...]] = {
    "锁门": (("OFF", "锁上", "off", 1), ("TYPE", "门", "Lock", 1)),
    "锁好门": (("OFF", "锁好", "off", 2), ("TYPE", "门", "Lock", 1)),
    "锁上门": (("OFF", "锁上", "off", 2), ("TYPE", "门", "Lock", 1)),
    # 全开/全关 is 全 (all) and the verb, however the rest of the sentence segments.
    "全开": (("DOU", "全", "all", 1), ("ON", "开", "on", 1)),
    "全关": (("DOU", "全", "all", 1), ("OFF", "关", "off", 1)),
    # 门窗 is two type words said as one: doors and windows.
    "门窗": (("TYPE", "门", "Lock", 1), ("AND", "和", "and", 0), ("TYPE", "窗", "Blind", 1)),
    # Watching the television is having it on: 我要看电视.
    **{
        "看" + tv: (("ON", "看", "on", 1), ("TYPE", tv, "Television", len(tv)))
        for tv in ("电视", "电视机")
    },
    # What is washed or dried names the appliance: 开始洗衣服 is the washer's cycle, 开始烘干
    # the dryer's (issue 20).
    **{
        verb: (("MEDIA", verb, "run_cycle", len(verb)), ("TYPE", noun, kind, 0))
        for kind, noun, verbs in (
            (
                "Washer",
                "洗衣机",
                ("开始洗衣服", "洗衣服", "开始洗衣", "洗衣", "洗下衣服", "洗衫", "开始洗衫"),
            ),
            ("Dryer", "烘干机", ("开始烘干", "烘干", "烘衣服", "开始烘衣服", "烘干衣服")),
        )
        for verb in verbs
    },
    # Stopping or pausing what is washed or dried stops or pauses that appliance (停止洗衣服,
    # 暂停烘干); so does 别/不要 … 了 said of the activity (别洗了), as 别放了 pauses the music.
    # The bare 洗/烘 only with 了: 别洗澡了 and 停止洗碗 name nothing here.
    **{
        verb + activity + end: (("MEDIA", verb, action, len(verb)), ("TYPE", noun, kind, 0))
        for kind, noun, activities in (
            ("Washer", "洗衣机", ("洗衣服", "洗衣", "洗衫")),
            ("Dryer", "烘干机", ("烘干", "烘衣服", "烘干衣服", "烘衫")),
        )
        for activity in activities
        for verb, action, ends in (
            ("停止", "stop", ("",)),
            ("停", "stop", ("",)),
            ("暂停", "pause", ("",)),
            *((neg, "stop", ("了", "喇")) for neg in ("别", "不要", "唔好", "不用")),
        )
        for end in ends
    },
    # Cantonese 光啲 (brighter); 光 alone stays out of the vocabulary (灯光, 光照).
    **{
        "光" + little: (("ADJ", "光", ("brightness", 1, 0), 1), ("YIDIAN", little, 1, len(little)))
        for little in ("啲", "少少")
    },
    **{
        neg + activity + end: (("MEDIA", neg, "stop", len(neg)), ("TYPE", noun, kind, 0))
        for kind, noun, activity in (("Washer", "洗衣机", "洗"), ("Dryer", "烘干机", "烘"))
        for neg in ("别", "不要", "唔好", "不用")
        for end in ("了", "喇")
    },
}

# Rooms said by another everyday word: a home whose room is called 卧室 is also reached by
# 睡房 (compiler/lexicon.py adds the variant as an alias unless the home uses it already).
# The words a scene's name may end in (睡眠模式, 晚安场景, 回家情景): a home's scene is also said
# with another of them, and its alias with any (compiler/lexicon.py _scene_variants).
SCENE_ENDS = ("模式", "场景", "情景", "情景模式")
ROOM_SYNONYMS = (
    ("卧室", "睡房"),
    ("卧室", "寝室"),
    ("主卧", "主人房"),
    ("卫生间", "厕所"),
    ("卫生间", "洗手间"),
    ("卫生间", "浴室"),
    ("客厅", "大厅"),
    ("儿童房", "小孩房"),
    ("儿童房", "孩子房"),
    ("儿童房", "小朋友房"),
    ("儿童房", "宝宝房"),
    ("房", "房间"),  # 儿童房间, 厨房间 (Shanghainese), 书房间
    ("厨房", "灶间"),
    ("阳台", "露台"),
)

# Devices said by another word for the same thing: a home whose awning is called 遮阳棚 is
# also reached by 雨棚 (compiler/lexicon.py adds the variant as an alias of each name that
# holds the usual word, unless the home uses it already).
NAME_SYNONYMS = (
    ("遮阳棚", "遮阳篷"),
    ("遮阳棚", "雨棚"),
    ("遮阳棚", "雨蓬"),
    ("遮阳棚", "遮雨棚"),
    ("百叶窗", "百叶帘"),
    # A narrower kind said of a device the home names by the broader word: a blackout
    # curtain (遮光帘) is a 窗帘, a French window (落地窗) a 窗户. A home that names a device
    # by the narrower word keeps it to that device.
    ("窗帘", "遮光帘"),
    ("窗户", "落地窗"),
    ("排气扇", "抽风机"),  # Taiwanese
    ("灯", "电灯"),  # 客厅的电灯 is the device named 客厅灯, as 客厅的灯 is
)

# Classifiers that turn a number into a count: 三个插座, 两盏灯.
CLASSIFIERS = ("个", "盏", "台", "只", "扇", "部", "组", "路", "套", "把")

# Chinese numerals, for the number scanner in compiler/numbers.py.
DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "俩": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}
# Tens said as one character (廿四 is 24, 卅 30): written and Cantonese speech.
TENS = {"廿": 20, "卅": 30}


# Whether an utterance asks or states (issue 19: a question is never a confirmation).
STATEMENT_END = " \t\u3000。.!！~～…、，,"
"""What may end (or separate the parts of) a statement: spaces, stops, commas."""
QUESTION = r"[?？]|[吗么嘛呢咩]$|(.{1,2})[不唔]\1|[是系]咪|是否|难道|什么|怎么|为什么|为啥|真的"
"""A question, as a regular expression: a question mark anywhere, a final question particle,
A-not-A (对不对, 确不确定, 对唔对), 系咪, or a question word."""


TABLES["CALLED"] = dict.fromkeys(CALLED, "called")

# --- The composed vocabulary ----------------------------------------------------------------
LISTED = TABLES
"""The words each table lists (morphemes and irregular forms; never a composed one)."""

from jiayu.grammar.morphology import compose  # noqa: E402  (it reads the morphemes above)

_COMPOSED = compose()
TABLES = _COMPOSED.tables
"""Every word of the vocabulary by kind: the listed ones and those grammar/morphology.py
composes from the morphemes above (关掉, 整开, 有点闷, 变小, 扫完没有)."""
FILLER_WORDS = _COMPOSED.fillers
"""The fillers and the wrappers (requests, tags, particles): what the lexer drops."""
COMPOUND_WORDS = _COMPOSED.compounds
"""The compounds, listed and composed."""
UNHEARD = _COMPOSED.unheard
"""Switching verbs believed only when said exactly, never by their sound: all but the stems
and their complements (打开, 关掉)."""
