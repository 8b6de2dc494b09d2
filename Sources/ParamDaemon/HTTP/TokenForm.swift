import Foundation

/// The page a request without a valid token gets beyond loopback (SPEC §16, 401): one field
/// for the token, sent back as `?token=` to the page that was asked for. Nothing on it runs
/// script or loads anything.
enum TokenForm {
    static func page(action: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>paramd: token needed</title>
        <style>body{font:16px system-ui,sans-serif;margin:2em auto;max-width:28em;padding:0 1em}
        input{font:inherit;width:100%;box-sizing:border-box;padding:.5em;margin:.5em 0}
        button{font:inherit;padding:.5em 1.5em}</style></head>
        <body><h1>Token needed</h1>
        <p>This paramd listens on the network and asks for its token. Open the URL that
        <code>paramd --show-url</code> prints (or scan its QR code), or paste the token here.</p>
        <form method="get" action="\(escaped(action.isEmpty ? "/" : action))">
        <label for="token">Token</label>
        <input id="token" name="token" type="password" autocomplete="current-password" autofocus required>
        <button type="submit">Open</button></form></body></html>

        """
    }

    /// The path as an HTML attribute value.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
