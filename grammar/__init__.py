"""The grammar (jiayu.lark) and the fixed vocabulary the lexer segments with."""
