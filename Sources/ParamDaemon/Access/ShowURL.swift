import Foundation
import ParamCore
import ParamSystem

/// `paramd --show-url` (SPEC §16): the control page's URL with its token, and a QR code a phone
/// can scan, for each non-loopback address the settings make paramd listen on; the token file
/// is made if it does not exist yet, so a paramd started later uses the same token.
enum ShowURL {
    /// Prints and returns the exit status: 0, 78 for a bad config file, 1 for no page to show
    /// or a token file that cannot be read or made.
    static func run(commandLine: Options, environment: [String: String]) -> Int32 {
        let settings: Settings
        do {
            settings = try Settings.load(commandLine: commandLine, environment: environment).settings
        } catch {
            FileHandle.standardError.write(Data("paramd: bad config file: \(error)\n".utf8))
            return 78
        }
        guard settings.httpPort != 0 else {
            FileHandle.standardError.write(Data("paramd: HTTP is off (--http-port 0): there is no page to show\n".utf8))
            return 1
        }
        let bound = settings.hosts.compactMap { SocketAddress(numeric: $0, port: settings.port) }
        let addresses = ListeningAddresses().reachable(bound: bound)
        guard !addresses.isEmpty else {
            print("paramd listens on loopback only: http://localhost:\(settings.httpPort)/ui needs no token, and no phone can reach it.")
            print("Bind an address of this machine to reach it from another (--bind, docs/OPERATIONS.md \"On a network\").")
            return 0
        }
        var tokens: AccessTokens? = nil
        if !settings.open {
            do {
                tokens = try Daemon.readTokens(settings)
            } catch {
                FileHandle.standardError.write(Data("paramd: \(error)\n".utf8))
                return 1
            }
        }
        let colored = isatty(STDOUT_FILENO) == 1
        for address in addresses {
            var pages = [("control page", tokens?.control)]
            if let observe = tokens?.observe { pages.append(("read-only page", observe)) }
            for (what, token) in pages {
                let url = ListeningAddresses.pageURL(address, port: settings.httpPort, token: token)
                print("paramd's \(what) on \(address)\(settings.open ? " (--open: no token)" : ""):")
                print(url)
                if let code = QRCode(url) { print(code.lines(colored: colored).joined(separator: "\n")) }
                print("")
            }
        }
        return 0
    }
}
