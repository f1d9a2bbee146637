"""The fixed vocabulary: every word the grammar knows that is not a home's own name.

Each table maps a surface form to the payload its token carries. This file is
data, reviewed like code: adding a synonym here is how the grammar learns it.
Surfaces are in normalised form (simplified, half-width, lower case).
"""

from __future__ import annotations

from typing import Any

# Said before anything else to wake a speaker; dropped like fillers.
WAKE_WORDS = ("小爱同学", "小爱", "天猫精灵", "小度小度", "小度", "嘿siri", "hey siri", "你好小智")

# Politeness and particles: they never change the meaning, so the lexer drops them.
FILLERS = (
    "请", "请你", "麻烦", "麻烦你", "麻烦您", "帮我", "帮忙", "帮", "给我", "替我", "一下", "一下子",
    "下", "吧", "吗", "呢", "啊", "呀", "哦", "嗯", "哈", "啦", "呗", "嘛", "了", "谢谢", "谢谢你",
    "谢啦", "好吗", "行吗", "可以吗", "好不好", "行不行", "现在", "马上", "立刻", "赶紧", "快",
    "你", "您", "我要", "我想", "我想要", "想", "要", "能不能", "能否", "可不可以", "的话",
    "先", "也", "还", "就好", "就行", "一起", "给", "那", "那么", "嘿", "喂", "是",
)

TABLES: dict[str, dict[str, Any]] = {
    # 打开 cluster; the per-device command is chosen by the resolver.
    "ON": dict.fromkeys(
        ("打开", "开", "开启", "启动", "拉开", "开开", "打开来", "开起来", "开着", "执行", "运行",
         "进入", "启用", "点亮", "亮起", "开一开"), "on"),
    "OFF": dict.fromkeys(
        ("关", "关掉", "关闭", "关上", "关了", "拉上", "合上", "熄灭", "关一关", "停用", "断开",
         "断电", "熄掉", "灭掉", "灭了"), "off"),
    # Verbs that take a value: 调到26度.
    "SET": dict.fromkeys(
        ("调到", "调成", "调为", "调至", "设为", "设成", "设到", "设置为", "设置成", "设置到",
         "设定为", "设定成", "设定到", "调整到", "调整为", "调整成", "改成", "改为", "改到",
         "开到", "切换到", "切换成", "切到", "换成", "换到", "变成", "放到", "定到", "定在",
         "设在", "调在", "拉到", "关到"), "set"),
    # A verb that names its target before the value: 设置空调温度为26度.
    "SETV": dict.fromkeys(("设置", "设定", "调", "调整", "把它调"), "set"),
    "TO": dict.fromkeys(("到", "为", "成", "至", "在"), "to"),
    # Relative changes: (attribute or None, direction, warmth).
    "REL": {
        "调亮": ("brightness", 1, 0), "调暗": ("brightness", -1, 0), "调高": (None, 1, 0),
        "调低": (None, -1, 0), "调大": (None, 1, 0), "调小": (None, -1, 0), "开大": (None, 1, 0),
        "开小": (None, -1, 0), "关小": (None, -1, 0), "升高": (None, 1, 0), "降低": (None, -1, 0),
        "提高": (None, 1, 0), "加大": (None, 1, 0), "减小": (None, -1, 0), "调暖": (None, 0, 1),
        "调冷": (None, 0, -1), "调凉": (None, 0, -1), "调热": (None, 0, 1), "升": (None, 1, 0),
        "降": (None, -1, 0), "加": (None, 1, 0), "减": (None, -1, 0), "调亮些": ("brightness", 1, 0),
        "调弱": (None, -1, 0), "调强": (None, 1, 0), "增大": (None, 1, 0), "降下": (None, -1, 0),
    },
    # Adjectives that make a relative change with 一点 (亮一点) or name a level (风速高).
    "ADJ": {
        "亮": ("brightness", 1, 0), "暗": ("brightness", -1, 0), "高": (None, 1, 0),
        "低": (None, -1, 0), "大": (None, 1, 0), "小": (None, -1, 0), "暖": (None, 0, 1),
        "冷": (None, 0, -1), "凉": (None, 0, -1), "热": (None, 0, 1), "大声": ("volume", 1, 0),
        "小声": ("volume", -1, 0), "中": (None, 0, 0), "强": (None, 1, 0), "弱": (None, -1, 0),
        "凉快": (None, 0, -1), "暖和": (None, 0, 1), "亮堂": ("brightness", 1, 0),
    },
    "YIDIAN": dict.fromkeys(("一点", "一点点", "一些", "点", "些", "一点儿", "点儿", "一丢丢"), 1),
    # Extremes: (attribute or None, direction).
    "EXTREME": {
        "最亮": ("brightness", 1), "最暗": ("brightness", -1), "最大": (None, 1),
        "最小": (None, -1), "最高": (None, 1), "最低": (None, -1), "最大声": ("volume", 1),
        "最小声": ("volume", -1), "最冷": ("target_temperature", -1),
        "最热": ("target_temperature", 1), "最强": (None, 1), "最弱": (None, -1),
        "全开": ("position", 1),
    },
    # Attributes; 温度 means the sensors' temperature unless a set point is meant.
    "ATTR": {
        "亮度": "brightness", "色温": "color_temp", "温度": "temperature",
        "室温": "temperature", "气温": "temperature", "设定温度": "target_temperature",
        "目标温度": "target_temperature", "设置温度": "target_temperature", "模式": "mode",
        "风速": "fan_speed", "风量": "fan_speed", "风力": "fan_speed", "风": "fan_speed",
        "音量": "volume", "声音": "volume", "湿度": "humidity", "光照": "illuminance",
        "照度": "illuminance", "光线": "illuminance", "位置": "position", "开合度": "position",
        "开度": "position", "状态": "state", "电量": "state",
    },
    "DEG": dict.fromkeys(("度", "摄氏度", "°c", "℃", "°"), "°C"),
    "DEG_HALF": dict.fromkeys(("度半",), 0.5),
    "PCT": dict.fromkeys(("%", "％", "个百分点"), "%"),
    "PCT_PRE": dict.fromkeys(("百分之",), "%"),
    "KELVIN": dict.fromkeys(("k", "开尔文"), "K"),
    "HALF": dict.fromkeys(("一半", "半开", "一半儿"), 50),
    "MODE": {
        "制冷": "cool", "冷气": "cool", "冷风": "cool", "制热": "heat", "暖风": "heat",
        "热风": "heat", "取暖": "heat", "除湿": "dry", "抽湿": "dry", "干燥": "dry",
        "送风": "fan", "通风": "fan", "自动": "auto", "智能": "auto",
    },
    "SPEED": {
        "高速": "high", "高风": "high", "高档": "high", "强风": "high", "大风": "high",
        "中速": "medium", "中风": "medium", "中档": "medium", "低速": "low", "低风": "low",
        "低档": "low", "弱风": "low", "小风": "low", "微风": "low", "自动风": "auto",
        "自动风速": "auto",
    },
    # Type words: the type they stand for.
    "TYPE": {
        "灯": "Light", "电灯": "Light", "灯泡": "Light", "灯光": "Light", "照明": "Light",
        "插座": "SmartPlug", "插头": "SmartPlug", "排插": "SmartPlug", "开关": "Switch",
        "空调": "AirConditioner", "冷气机": "AirConditioner", "窗帘": "Blind",
        "帘子": "Blind", "百叶窗": "Blind", "风扇": "Fan", "电扇": "Fan", "电风扇": "Fan",
        "电视": "Television", "电视机": "Television", "音箱": "NetworkAudio",
        "音响": "NetworkAudio", "喇叭": "NetworkAudio", "门锁": "Lock", "锁": "Lock",
        "阀": "Valve", "阀门": "Valve", "取暖器": "Heater", "暖风机": "Heater",
        "加湿器": "Humidifier", "净化器": "Purifier", "空气净化器": "Purifier",
        "洗衣机": "Washer", "充电器": "Charger", "传感器": "Sensor", "网关": "Hub",
        "设备": None, "电器": None, "东西": None,
    },
    "DE": dict.fromkeys(("的", "里的", "里面的", "那边的", "这边的"), "de"),
    "AND": dict.fromkeys(("和", "跟", "与", "及", "以及", "还有", "、", "和那个", "加上"), "and"),
    "SEP": dict.fromkeys(
        (",", "，", "。", ".", "!", "！", "?", "？", ";", "；", "然后", "再", "并且", "同时",
         "接着", "之后", "随后", "顺便", "另外", "而且", "顺便把", "再把", "完了", "并"), "sep"),
    "BA": dict.fromkeys(("把", "将", "让"), "ba"),
    "ALL": dict.fromkeys(
        ("所有", "所有的", "全部", "全部的", "一切", "每个", "每一个", "每盏", "各个", "整个"), "all"),
    "DOU": dict.fromkeys(("都", "全", "全都", "统统", "通通", "都给", "一律"), "all"),
    "ANY": dict.fromkeys(("随便一个", "任意一个", "随便哪个", "任何一个", "随便一盏"), "any"),
    "EXCEPT": dict.fromkeys(("除", "除了", "除去", "除开", "不包括", "除掉"), "except"),
    "EXCEPT_END": dict.fromkeys(("以外", "之外", "外", "以外的", "之外的"), "end"),
    "EXCEPT_POST": dict.fromkeys(("除外", "不算", "不用管", "不要动"), "post"),
    "HOME": dict.fromkeys(("全屋", "全家", "家里", "整个家", "所有房间", "每个房间", "家中", "屋里"),
                          "home"),
    "THIS_ROOM": dict.fromkeys(("这个房间", "这里", "这儿", "这间", "这屋", "本房间", "这个屋"),
                               "this_room"),
    "OTHER": dict.fromkeys(("其他房间", "其它房间", "别的房间", "其余房间", "其他地方", "其它地方",
                            "其余的房间", "其他的房间"), "other_rooms"),
    "IF": dict.fromkeys(("如果", "要是", "假如", "假设", "若", "如若", "万一", "当", "一旦"), "if"),
    "THEN": dict.fromkeys(("就", "那就", "则", "就给", "就帮我", "就把"), "then"),
    "CMP": {
        "超过": ">", "高于": ">", "大于": ">", "多于": ">", "超出": ">", "高过": ">",
        "低于": "<", "小于": "<", "不到": "<", "少于": "<", "不足": "<", "低过": "<",
        "达到": ">=", "到了": ">=", "不低于": ">=", "不少于": ">=", "不高于": "<=",
        "不超过": "<=", "以上": ">", "以下": "<",
    },
    # Question words: the attribute they imply, or None.
    "QWORD": {
        "多少": None, "是多少": None, "几度": "temperature", "多少度": "temperature",
        "是几度": "temperature", "怎么样": None, "如何": None, "几": None, "是什么": None,
        "什么": None, "什么模式": "mode", "是什么模式": "mode", "几档": "fan_speed",
        "多高": None, "多大": None, "高不高": None, "热不热": "temperature",
        "冷不冷": "temperature", "潮不潮": "humidity", "干不干": "humidity", "多亮": "brightness",
    },
    # Yes/no questions about a state: the attribute, or None for the device's main state.
    "QSTATE": {
        "开着吗": "on", "开了吗": "on", "开着没": "on", "开着没有": "on", "打开了吗": "on",
        "是开着的吗": "on", "还开着吗": "on", "关了吗": "on", "关着吗": "on", "关掉了吗": "on",
        "关好了吗": None, "锁了吗": "locked", "锁上了吗": "locked", "锁好了吗": "locked",
        "锁着吗": "locked", "锁没锁": "locked", "了吗": None, "在运行吗": "on", "开没开": "on",
        "关没关": "on", "在播放吗": "playing", "开着的吗": "on",
    },
    "QVERB": dict.fromkeys(("查询", "查一下", "查查", "看看", "看一下", "告诉我", "问一下", "报告",
                            "查"), "query"),
    "IT": {
        "它": "it", "他": "it", "她": "it", "那个": "it", "这个": "it", "刚才那个": "it",
        "刚才的": "it", "刚刚那个": "it", "刚才那台": "it", "那台": "it", "这台": "it",
        "那盏": "it", "这盏": "it", "它们": "they", "他们": "they", "这些": "they", "那些": "they",
        "刚才那些": "they",
    },
    "MEDIA": {
        "静音": "mute", "取消静音": "unmute", "解除静音": "unmute", "关闭静音": "unmute",
        "关掉静音": "unmute", "恢复声音": "unmute", "播放": "play", "继续播放": "play",
        "继续": "play", "放歌": "play", "放音乐": "play", "播放音乐": "play", "暂停": "pause",
        "暂停播放": "pause", "下一首": "next_track", "下一曲": "next_track", "切歌": "next_track",
        "换一首": "next_track", "下首": "next_track", "上一首": "previous_track",
        "上一曲": "previous_track", "上首": "previous_track", "停": "stop", "停止": "stop",
        "停下": "stop", "停住": "stop", "别动了": "stop",
    },
    "REPEAT": dict.fromkeys(("再来一次", "再来一遍", "重复一次", "重复一遍", "再一次", "再来",
                             "照刚才的再来一次", "一样的", "同样的", "重复"), "repeat"),
    "CONFIRM": dict.fromkeys(("确认", "确定", "是的", "好的", "对", "对的", "好", "可以",
                              "没问题", "行", "确认执行", "确定执行", "嗯嗯", "没错", "对对"),
                             "confirm"),
    "CANCEL": dict.fromkeys(("算了", "取消", "不用了", "不要了", "不用", "不要", "别", "不",
                             "不是", "别开", "不必了", "还是算了"), "cancel"),
    "ORDINAL": {
        **{f"第{w}个": n for n, w in enumerate("一二三四五六七八九", 1)},
        **{f"第{w}": n for n, w in enumerate("一二三四五六七八九", 1)},
        **{f"第{n}个": n for n in range(1, 10)},
        "前面那个": 1, "前一个": 1, "后面那个": 2, "后一个": 2, "最后一个": -1,
    },
}

# Classifiers that turn a number into a count: 三个插座, 两盏灯.
CLASSIFIERS = ("个", "盏", "台", "只", "扇", "部", "组", "路", "套", "把")

# Chinese numerals, for the number scanner in compiler/numbers.py.
DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "俩": 2, "三": 3, "四": 4, "五": 5, "六": 6,
          "七": 7, "八": 8, "九": 9}
UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}
