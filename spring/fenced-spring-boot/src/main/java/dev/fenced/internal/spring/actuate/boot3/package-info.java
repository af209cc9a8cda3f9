/** The health indicator against Spring Boot 3's actuator API. <b>Internal to fenced.</b> */
@NullMarked
package dev.fenced.internal.spring.actuate.boot3;

import org.jspecify.annotations.NullMarked;
