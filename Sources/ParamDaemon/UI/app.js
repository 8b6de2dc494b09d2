// paramd's control page (placeholder; the `ui` branch replaces it).
"use strict";
