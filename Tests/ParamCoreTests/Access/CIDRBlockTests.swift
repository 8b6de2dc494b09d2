import ParamCore
import Testing

/// SPEC §16's `allow`: addresses and blocks parsed from text, IPv4 and IPv6, matched by prefix;
/// an IPv4 block matches the same address as a dual-stack socket reports it (IPv4-mapped).
struct CIDRBlockTests {
    @Test func addressesParseAndPrintBack() throws {
        for text in ["10.77.0.1", "0.0.0.0", "255.255.255.255", "fd77::1", "::1", "::", "fe80::1:2:3:4",
                     "2001:db8::8:800:200c:417a", "1:2:3:4:5:6:7:8"] {
            let address = try #require(IPAddress(text), "\(text)")
            #expect(address.description == text)
        }
        #expect(IPAddress("::ffff:10.0.0.1") == IPAddress("10.0.0.1"))
        #expect(IPAddress("2001:0db8:0000:0000:0000:0000:0000:0001")?.description == "2001:db8::1")
        for bad in ["", "10.0.0", "10.0.0.256", "10.0.0.1.2", "01234.0.0.1", "1::2::3", "1:2:3:4:5:6:7:8:9", ":1", "1:",
                    "12345::1", "g::1", "localhost", "10.0.0.1 ", "fe80::1%eth0", "1:2:3:4:5:6:7::8:9"] {
            #expect(IPAddress(bad) == nil, "\(bad)")
        }
    }

    @Test func ipv4BlocksMatchByPrefix() throws {
        let block = try #require(CIDRBlock("192.168.1.0/24"))
        #expect(block.contains(IPAddress("192.168.1.0")!))
        #expect(block.contains(IPAddress("192.168.1.255")!))
        #expect(!block.contains(IPAddress("192.168.2.1")!))
        #expect(!block.contains(IPAddress("::c0a8:101")!), "an IPv6 address that is not IPv4-mapped")
        #expect(block.contains(IPAddress("::ffff:192.168.1.9")!), "as a dual-stack socket reports it")
        #expect(block.description == "192.168.1.0/24")
        #expect(CIDRBlock("10.77.0.5/24")?.description == "10.77.0.0/24", "host bits cleared")
        #expect(CIDRBlock("10.0.0.1")?.contains(IPAddress("10.0.0.1")!) == true)
        #expect(CIDRBlock("10.0.0.1")?.contains(IPAddress("10.0.0.2")!) == false)
        let everything = try #require(CIDRBlock("0.0.0.0/0"))
        #expect(everything.contains(IPAddress("203.0.113.9")!))
        #expect(!everything.contains(IPAddress("fd00::1")!), "IPv4's everything is not IPv6's")
        #expect(CIDRBlock("172.16.0.0/12")?.contains(IPAddress("172.31.255.1")!) == true)
        #expect(CIDRBlock("172.16.0.0/12")?.contains(IPAddress("172.32.0.1")!) == false)
    }

    @Test func ipv6BlocksMatchByPrefix() throws {
        let block = try #require(CIDRBlock("fd77::/64"))
        #expect(block.contains(IPAddress("fd77::1")!))
        #expect(block.contains(IPAddress("fd77::ffff:ffff:ffff:ffff")!))
        #expect(!block.contains(IPAddress("fd77:0:0:1::1")!))
        #expect(CIDRBlock("fd00::/8")?.contains(IPAddress("fdab:cd::9")!) == true)
        #expect(CIDRBlock("fd00::/8")?.contains(IPAddress("fe80::1")!) == false)
        #expect(CIDRBlock("2001:db8::/127")?.contains(IPAddress("2001:db8::1")!) == true)
        #expect(CIDRBlock("2001:db8::/127")?.contains(IPAddress("2001:db8::2")!) == false)
        #expect(CIDRBlock("::/0")?.contains(IPAddress("10.0.0.1")!) == true, "::/0 is every address")
        #expect(CIDRBlock("fd77::/64")?.description == "fd77::/64")
        #expect(CIDRBlock("fd77::1")?.prefixLength == 128)
    }

    @Test func badBlocksAreRefused() {
        for bad in ["", "/24", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/2x", "fd77::/129", "10.0.0.0/24/1",
                    "studio.local/24", "10.0.0.0/0024"] {
            #expect(CIDRBlock(bad) == nil, "\(bad)")
        }
    }

    @Test func theAllowlistAdmitsLoopbackAlwaysAndItsBlocks() throws {
        let list = SourceAllowlist([CIDRBlock("10.77.0.0/24")!, CIDRBlock("fd77::/64")!])
        for yes in ["127.0.0.1", "127.5.6.7", "::1", "::ffff:127.0.0.1", "10.77.0.2", "::ffff:10.77.0.200", "fd77::9"] {
            #expect(list.admits(IPAddress(yes)!), "\(yes)")
        }
        for no in ["10.77.1.2", "10.78.0.2", "fd78::1", "192.0.2.1", "::", "0.0.0.0", "fe80::1"] {
            #expect(!list.admits(IPAddress(no)!), "\(no)")
        }
        #expect(SourceAllowlist([]).admits(IPAddress("::1")!))
        #expect(!SourceAllowlist([]).admits(IPAddress("10.0.0.1")!))
        #expect(list.description == "10.77.0.0/24, fd77::/64")
    }
}
