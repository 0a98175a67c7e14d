"""A pure-ASGI middleware that refuses request bodies over a size limit with 413."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ticket_api.domain import render_json


class BodySizeLimit:
    """Answer 413 when a request body exceeds ``max_bytes``, before the app sees it.

    The declared Content-Length is checked first, so an honest oversized request is refused
    without reading it. The bytes actually received are counted too, because a chunked body
    declares no length and a client may send more than it declared.

    Args:
        app: The ASGI app to protect.
        max_bytes: Largest accepted body, in bytes.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        declared = headers.get(b"content-length")
        if declared is None and b"transfer-encoding" not in headers:
            # RFC 9112 6.3: neither header on a request means the body is empty.
            await self.app(scope, receive, send)
            return
        if declared is not None:
            try:
                length = int(declared)
            except ValueError:
                await _send_error(send, 400, "Content-Length is not a number")
                return
            if length > self.max_bytes:
                await _send_error(send, 413, self._too_large())
                return

        # Read the whole body (at most max_bytes) before calling the app, so the refusal
        # happens before any route code runs and nothing can have been changed.
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client left; there is nobody to answer
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await _send_error(send, 413, self._too_large())
                return
            chunks.append(chunk)
            more = message.get("more_body", False)

        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # later calls wait for http.disconnect, as usual

        await self.app(scope, replay, send)

    def _too_large(self) -> str:
        # RFC 9110 15.5.14: 413 Content Too Large.
        return f"request body is larger than {self.max_bytes} bytes ({self.max_bytes // 1024} KiB)"


async def _send_error(send: Send, status: int, message: str) -> None:
    body = render_json({"error": message}).encode("utf-8")
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode("ascii")),
            # The unread rest of the body would be taken for the next request: close instead.
            (b"connection", b"close"),
        ],
    })
    await send({"type": "http.response.body", "body": body})
