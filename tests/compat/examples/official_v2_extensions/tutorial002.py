from mcp.server.extension import Extension


class Stamps(Extension):
    identifier = "com.example/stamps"
