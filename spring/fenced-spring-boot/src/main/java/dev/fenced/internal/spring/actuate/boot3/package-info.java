/** The health indicator against Spring Boot 3's actuator API. <b>Internal to fenced.</b> */
package dev.fenced.internal.spring.actuate.boot3;
