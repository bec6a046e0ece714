// SPDX-License-Identifier: GPL-3.0-or-later

/// XML text escaping.
enum XML {
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // XML 1.0 cannot carry most control characters even escaped.
                if scalar.value < 0x20 && scalar != "\n" && scalar != "\t" && scalar != "\r" {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
