# examples/quickstart.py: one turn on the bundled demo home and its simulated hub.
import jiayu
from jiayu.engine import Engine

engine = Engine(jiayu.demo_home())  # your own home: Engine.from_file("home.json")
result = engine.turn("把客厅灯调亮一点", session_id="kitchen-speaker", area="kitchen")
print(result.outcome)
print(result.commands)
print(result.reply)

# The same session goes on: a question back, then its answer.
print(engine.turn("打开台灯", session_id="kitchen-speaker").reply)
print(engine.turn("书房的", session_id="kitchen-speaker").reply)
